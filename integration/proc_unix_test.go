//go:build unix

package integration_test

import (
	"os"
	"syscall"
)

// ownGroup starts a process as the leader of a process group of its own,
// so that the test can end it and everything it started together.
func ownGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills every process of the group pgid leads.
func killGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }

// terminate asks process pid to end (SIGTERM), letting it close what it
// holds on the way out.
func terminate(pid int) { _ = syscall.Kill(pid, syscall.SIGTERM) }

// pause stops process p (SIGSTOP) until resume.
func pause(p *os.Process) error { return p.Signal(syscall.SIGSTOP) }

// resume lets a paused process p go on (SIGCONT).
func resume(p *os.Process) error { return p.Signal(syscall.SIGCONT) }
