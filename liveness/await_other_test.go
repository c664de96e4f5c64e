//go:build !linux && !windows

package liveness_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/shirou/gopsutil/v3/process"
	"golang.org/x/sys/unix"
)

// AwaitChild waits until the child pid reaches the state options names
// (unix.WSTOPPED, unix.WCONTINUED or unix.WEXITED), without reaping it.
// Outside Linux there is no waitid with WNOWAIT in x/sys, so it polls the
// process's state as gopsutil reads it.
func AwaitChild(tb testing.TB, pid, options int) {
	tb.Helper()
	want := map[int][]string{
		unix.WSTOPPED:   {process.Stop},
		unix.WCONTINUED: {process.Running, process.Sleep, process.Idle, process.Wait},
		unix.WEXITED:    {process.Zombie},
	}[options]
	Eventually(tb, fmt.Sprintf("pid %d in state %v", pid, want), func() bool {
		st, err := (&process.Process{Pid: int32(pid)}).Status()
		return err == nil && slices.Contains(want, st[0])
	})
}
