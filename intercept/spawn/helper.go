//go:build linux

package spawn

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/internal/envname"
)

// childFD is where the helper (and the reaper) finds its end of the
// socketpair (exec.Cmd.ExtraFiles[0]).
const childFD = 3

// runHelper does the helper's work; it returns only on failure.
func runHelper(g Gate, argv []string) int {
	// What Setup does to the helper (a seccomp filter, a mount namespace)
	// is done to this OS thread only, and it is this thread that must
	// exec: execve keeps the calling thread's filter and namespaces.
	runtime.LockOSThread()
	os.Unsetenv(envname.SpawnHelper)
	if len(argv) == 0 {
		return helperFail(g, kindSetup, errors.New("no worker command"))
	}
	path, err := exec.LookPath(argv[0])
	if errors.Is(err, exec.ErrNotFound) {
		return helperFail(g, kindNotFound, err)
	} else if err != nil {
		return helperFail(g, kindSetup, err)
	}
	if err := g.Setup(handOver); err != nil {
		return helperFail(g, g.errorKind(err), err)
	}
	unix.Close(childFD)
	err = unix.Exec(path, argv, os.Environ())
	fmt.Fprintf(os.Stderr, "leasegate: exec %s: %v\n", argv[0], err)
	return 127
}

// handOver sends fd to the supervisor and waits until it serves it.
func handOver(fd int) error {
	if err := sendFD(childFD, fd); err != nil {
		return fmt.Errorf("send the gate's fd: %w", err)
	}
	return waitAck(childFD)
}

// helperFail reports a helper failure to the supervisor (if it still
// listens) and on stderr, and returns the exit code.
func helperFail(g Gate, kind string, err error) int {
	sendFailure(childFD, kind, err)
	fmt.Fprintf(os.Stderr, "leasegate: %s helper: %v\n", g.Name, err)
	return 127
}
