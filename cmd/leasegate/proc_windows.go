package main

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// detached is how a coordinator is started: in a process group of its
// own (CREATE_NEW_PROCESS_GROUP), so that the console's Ctrl-C stays with
// the command that started it.
func detached() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// stopCoordinator ends the coordinator pid. Windows cannot send a console
// signal to another process group's process, so it is terminated; every
// event it acknowledged is already durable in its ledger.
func stopCoordinator(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// closeOnExec keeps handle fd from the processes this one starts.
func closeOnExec(fd int) { syscall.CloseOnExec(syscall.Handle(fd)) }

// passReady hands the write end of the start-report pipe to the
// coordinator cmd starts: Windows passes no descriptors beyond the three
// standard ones, so the pipe's handle is made inheritable, inherited
// explicitly, and named by its number.
func passReady(cmd *exec.Cmd, pw *os.File) error {
	h := syscall.Handle(pw.Fd())
	if err := syscall.SetHandleInformation(h, syscall.HANDLE_FLAG_INHERIT, syscall.HANDLE_FLAG_INHERIT); err != nil {
		return err
	}
	cmd.SysProcAttr.AdditionalInheritedHandles = append(cmd.SysProcAttr.AdditionalInheritedHandles, h)
	cmd.Args = append(cmd.Args, "--ready-fd", strconv.FormatUint(uint64(h), 10))
	return nil
}
