//go:build !windows

package main

import (
	"os"
	"os/exec"
	"syscall"
)

// detached is how a coordinator is started: in a session of its own, so
// that the terminal's signals (Ctrl-C, hangup) stay with the command that
// started it.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// stopCoordinator asks the coordinator pid to stop (SIGTERM): it closes
// its ledger and socket on the way out.
func stopCoordinator(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }

// closeOnExec keeps descriptor fd from the processes this one starts.
func closeOnExec(fd int) { syscall.CloseOnExec(fd) }

// passReady hands the write end of the start-report pipe to the
// coordinator cmd starts, as its descriptor 3.
func passReady(cmd *exec.Cmd, pw *os.File) error {
	cmd.ExtraFiles = []*os.File{pw}
	cmd.Args = append(cmd.Args, "--ready-fd", "3")
	return nil
}

// startPipe returns the pipe a coordinator's start report comes back on:
// a plain pipe, whose read end takes deadlines here.
func startPipe() (r, w *os.File, err error) { return os.Pipe() }
