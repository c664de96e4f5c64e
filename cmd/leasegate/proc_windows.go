package main

import (
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"golang.org/x/sys/windows"
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

// startPipe returns the pipe a coordinator's start report comes back on.
// An anonymous pipe (os.Pipe) takes no read deadline on Windows, so the
// wait for the report could not end before the coordinator spoke or
// exited. The read end here is a named pipe opened for overlapped I/O,
// which os.NewFile hands to the runtime's poller, where deadlines work;
// the write end, for the coordinator, is an ordinary handle to it. The
// name is random, the pipe has one instance, and that instance is
// connected here before the name is given to anyone, so no other process
// can take its place.
func startPipe() (r, w *os.File, err error) {
	name := `\\.\pipe\leasegate-start-` + rand.Text()
	name16, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, nil, err
	}
	rh, err := windows.CreateNamedPipe(name16,
		windows.PIPE_ACCESS_INBOUND|windows.FILE_FLAG_OVERLAPPED|windows.FILE_FLAG_FIRST_PIPE_INSTANCE,
		windows.PIPE_TYPE_BYTE|windows.PIPE_READMODE_BYTE|windows.PIPE_WAIT|windows.PIPE_REJECT_REMOTE_CLIENTS,
		1, 0, 4096, 0, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("start-report pipe %s: %w", name, err)
	}
	wh, err := windows.CreateFile(name16, windows.GENERIC_WRITE, 0, nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		_ = windows.CloseHandle(rh)
		return nil, nil, fmt.Errorf("start-report pipe %s: %w", name, err)
	}
	return os.NewFile(uintptr(rh), name), os.NewFile(uintptr(wh), name), nil
}
