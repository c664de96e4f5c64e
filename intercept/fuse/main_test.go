//go:build linux && (amd64 || arm64)

package fuse_test

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept/fuse"
)

// The test binary run as a worker (FUSE_TEST_WORKER names what it does):
// exchangeArg0 swaps the two names it is given with
// renameat2(RENAME_EXCHANGE), connectArg0 connects to the unix socket it
// is given; no shell tool here can. openLoopArg0 opens the file it is
// given for writing N times and prints the nanoseconds that took.
// sizeWatchArg0 stats the file it is given without pause and prints the
// monotonic clock each time its size has changed, N times.
const (
	exchangeArg0  = "fuse-test-exchange"
	connectArg0   = "fuse-test-connect"
	openLoopArg0  = "fuse-test-open-loop"
	sizeWatchArg0 = "fuse-test-size-watch"
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
	case openLoopArg0:
		err = openLoop(args[0], args[1])
	case sizeWatchArg0:
		err = sizeWatch(args[0], args[1])
	default:
		err = fmt.Errorf("no worker %q", name)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// openLoop opens path with O_WRONLY|O_CREAT n times, closing it each time,
// and prints how long that took in nanoseconds.
func openLoop(path, n string) error {
	count, err := strconv.Atoi(n)
	if err != nil {
		return err
	}
	start := time.Now()
	for range count {
		fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_CLOEXEC, 0o644)
		if err != nil {
			return err
		}
		unix.Close(fd)
	}
	fmt.Println(time.Since(start).Nanoseconds())
	return nil
}

// sizeWatch prints the monotonic clock in nanoseconds when the size of
// path is first read and then each time it has changed, n times.
func sizeWatch(path, n string) error {
	count, err := strconv.Atoi(n)
	if err != nil {
		return err
	}
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return err
	}
	fmt.Println(monotonic())
	for range count {
		size := st.Size
		for st.Size == size {
			if err := unix.Stat(path, &st); err != nil {
				return err
			}
		}
		fmt.Println(monotonic())
	}
	return nil
}

// monotonic is CLOCK_MONOTONIC in nanoseconds, the same in every process.
func monotonic() int64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}
