//go:build !windows

package main

import "syscall"

// detached is how a coordinator is started: in a session of its own, so
// that the terminal's signals (Ctrl-C, hangup) stay with the command that
// started it.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// stopCoordinator asks the coordinator pid to stop (SIGTERM): it closes
// its ledger and socket on the way out.
func stopCoordinator(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }

// closeOnExec keeps descriptor fd from the processes this one starts.
func closeOnExec(fd int) { syscall.CloseOnExec(fd) }
