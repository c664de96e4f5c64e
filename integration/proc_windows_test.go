package integration_test

import (
	"errors"
	"os"
	"syscall"
)

// ownGroup starts a process in a process group of its own
// (CREATE_NEW_PROCESS_GROUP), so that the test's console signals stay
// with the test.
func ownGroup() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killGroup kills the process pgid: Windows cannot signal a process
// group, so what the leader started outlives it.
func killGroup(pgid int) { kill(pgid) }

// terminate ends process pid: Windows cannot send a console signal to a
// process of another group, so it is terminated at once.
func terminate(pid int) { kill(pid) }

// errNoPause: Windows has no signal that stops a process and lets it go on.
var errNoPause = errors.New("pausing a process is not supported on Windows")

func pause(*os.Process) error  { return errNoPause }
func resume(*os.Process) error { return errNoPause }
