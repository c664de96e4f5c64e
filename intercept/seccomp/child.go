//go:build linux && (amd64 || arm64)

package seccomp

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/internal/envname"
)

const (
	// childEnv marks the re-executed helper; it is removed from the
	// worker's environment before exec.
	childEnv = envname.SeccompChild
	// childFD is where the helper finds its end of the socketpair
	// (exec.Cmd.ExtraFiles[0]).
	childFD = 3
	// helperArg0 is the helper's argv[0]; its argv[1:] is the worker's.
	helperArg0 = "leasegate-seccomp-helper"
)

// MaybeRunChild turns the process into the gate's helper (or, with
// Config.Reap, its reaper) if it was started as one by Start, and
// otherwise returns at once. Call it first thing in
// main (and in TestMain of tests that use Start), before any goroutines or
// flag parsing.
//
// As the helper it never returns: it installs the filter on itself, hands
// the listener to the supervisor, waits for its go-ahead, and execs the
// worker; on any failure it prints why on stderr and exits with 127.
func MaybeRunChild() {
	if os.Getenv(reaperEnv) == "1" {
		runReaper(os.Args[1:])
	}
	if os.Getenv(childEnv) != "1" {
		return
	}
	os.Exit(runChild(os.Args[1:]))
}

// runChild does the helper's work; it returns only on failure.
func runChild(argv []string) int {
	// The filter is installed on this OS thread only, and it is this
	// thread that must exec: execve keeps the calling thread's filter.
	runtime.LockOSThread()
	os.Unsetenv(childEnv)
	if len(argv) == 0 {
		return childFail(kindSetup, errors.New("no worker command"))
	}
	path, err := exec.LookPath(argv[0])
	if errors.Is(err, exec.ErrNotFound) {
		return childFail(kindNotFound, err)
	} else if err != nil {
		return childFail(kindSetup, err)
	}
	if err := gateSelf(); err != nil {
		return childFail(helperErrorKind(err), err)
	}
	unix.Close(childFD)
	err = unix.Exec(path, argv, os.Environ())
	fmt.Fprintf(os.Stderr, "leasegate: exec %s: %v\n", argv[0], err)
	return 127
}

// gateSelf installs the filter and hands its listener to the supervisor.
// When it returns nil the supervisor is serving.
func gateSelf() error {
	if err := setNoNewPrivs(); err != nil {
		return err
	}
	listener, err := installFilter()
	if err != nil {
		return err
	}
	// The worker must not keep the listener: it could answer its own
	// notifications, and the supervisor would never see the last task go.
	defer unix.Close(listener)
	if err := sendListener(childFD, listener); err != nil {
		return fmt.Errorf("send listener: %w", err)
	}
	return waitAck(childFD)
}

// childFail reports a helper failure to the supervisor (if it still
// listens) and on stderr, and returns the exit code.
func childFail(kind string, err error) int {
	sendFailure(childFD, kind, err)
	fmt.Fprintf(os.Stderr, "leasegate: seccomp helper: %v\n", err)
	return 127
}
