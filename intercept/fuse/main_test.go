//go:build linux

package fuse_test

import (
	"fmt"
	"net"
	"os"
	"testing"

	"go.uber.org/goleak"
	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept/fuse"
)

// The test binary run as a worker (FUSE_TEST_WORKER names what it does):
// exchangeArg0 swaps the two names it is given with
// renameat2(RENAME_EXCHANGE), connectArg0 connects to the unix socket it
// is given; no shell tool here can.
const (
	exchangeArg0 = "fuse-test-exchange"
	connectArg0  = "fuse-test-connect"
)

// TestMain first lets the test binary act as the gate's helper (Start
// re-executes it) or as the exchanging worker, and only then runs the
// tests with a goroutine leak check.
func TestMain(m *testing.M) {
	fuse.MaybeRunChild()
	if worker := os.Getenv("FUSE_TEST_WORKER"); worker != "" {
		os.Exit(runWorker(worker, os.Args[1:]))
	}
	goleak.VerifyTestMain(m)
}

// runWorker does what a test's worker asks.
func runWorker(name string, args []string) int {
	var err error
	switch name {
	case exchangeArg0:
		err = unix.Renameat2(unix.AT_FDCWD, args[0], unix.AT_FDCWD, args[1], unix.RENAME_EXCHANGE)
	case connectArg0:
		var c net.Conn
		if c, err = net.Dial("unix", args[0]); err == nil {
			c.Close()
		}
	default:
		err = fmt.Errorf("no worker %q", name)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
