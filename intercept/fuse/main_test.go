//go:build linux

package fuse_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept/fuse"
)

// exchangeArg0 makes the test binary, run as a worker, swap the two names
// it is given with renameat2(RENAME_EXCHANGE), which no shell tool here
// can.
const exchangeArg0 = "fuse-test-exchange"

// TestMain first lets the test binary act as the gate's helper (Start
// re-executes it) or as the exchanging worker, and only then runs the
// tests with a goroutine leak check.
func TestMain(m *testing.M) {
	fuse.MaybeRunChild()
	if os.Getenv("FUSE_TEST_WORKER") == exchangeArg0 {
		err := unix.Renameat2(unix.AT_FDCWD, os.Args[1], unix.AT_FDCWD, os.Args[2], unix.RENAME_EXCHANGE)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}
