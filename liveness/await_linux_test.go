package liveness_test

import (
	"testing"

	"golang.org/x/sys/unix"
)

// AwaitChild blocks until the child pid reports a state change of the
// kind in options (unix.WSTOPPED, unix.WCONTINUED or unix.WEXITED) and
// leaves it reportable (WNOWAIT), so an exited child stays a zombie until
// its Cmd.Wait.
func AwaitChild(tb testing.TB, pid, options int) {
	tb.Helper()
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, options|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			tb.Fatalf("waitid(%d, %#x) = %v", pid, options, err)
		}
		return
	}
}
