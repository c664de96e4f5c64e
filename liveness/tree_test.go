//go:build !windows

package liveness_test

import (
	"errors"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/liveness"
)

func mustTreeStopped(tb testing.TB, pid int) bool {
	tb.Helper()
	stopped, err := liveness.TreeStopped(pid)
	if err != nil {
		tb.Fatalf("TreeStopped(%d) = %v", pid, err)
	}
	return stopped
}

// TestTreeStopped walks sh and its two sleeps through stop states; only a
// tree stopped from root to leaves counts as stopped.
func TestTreeStopped(t *testing.T) {
	sh := MustStartTree(t)
	root := sh.Process.Pid

	if mustTreeStopped(t, root) {
		t.Fatalf("TreeStopped(%d) = true for a running tree, want false", root)
	}

	MustSignal(t, root, syscall.SIGSTOP)
	AwaitChild(t, root, unix.WSTOPPED)
	if mustTreeStopped(t, root) {
		t.Fatalf("TreeStopped(%d) = true with only the root stopped, want false", root)
	}

	MustSignal(t, -root, syscall.SIGSTOP) // the whole process group
	Eventually(t, "TreeStopped after SIGSTOP to the group", func() bool { return mustTreeStopped(t, root) })

	MustSignal(t, root, syscall.SIGCONT)
	AwaitChild(t, root, unix.WCONTINUED)
	if mustTreeStopped(t, root) {
		t.Fatalf("TreeStopped(%d) = true with the root running again, want false", root)
	}
}

func TestTreeStoppedSingleProcess(t *testing.T) {
	cmd := MustStart(t, false, "sleep", "30")
	pid := cmd.Process.Pid
	MustSignal(t, pid, syscall.SIGSTOP)
	AwaitChild(t, pid, unix.WSTOPPED)
	if !mustTreeStopped(t, pid) {
		t.Fatalf("TreeStopped(%d) = false for a stopped process without children, want true", pid)
	}
}

func TestTreeStoppedMissing(t *testing.T) {
	cmd := MustStart(t, false, "sleep", "30")
	pid := cmd.Process.Pid
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if _, err := liveness.TreeStopped(pid); !errors.Is(err, liveness.ErrProcessNotFound) {
		t.Errorf("TreeStopped(reaped %d) = %v, want %v", pid, err, liveness.ErrProcessNotFound)
	}
}
