package watch_test

import (
	"context"
	"strings"
	"syscall"
	"testing"

	"github.com/leasegate/leasegate/watch"
)

// TestNoInotifyInstanceSaid: when the watcher cannot get an inotify
// instance (the user's fs.inotify.max_user_instances is used up by other
// programs, or the open-files limit is met; both are EMFILE), the whole
// workspace is told to Unwatched, so that status says ungated writes go
// unseen, and the error names both limits. It was only a log line naming
// "too many open files".
func TestNoInotifyInstanceSaid(t *testing.T) {
	ws, rule := checkout(t)
	var unwatched []string
	cfg := watch.Config{Workspace: ws, Rule: rule, Window: -1,
		Unwatched: func(rel string) { unwatched = append(unwatched, rel) },
		Report:    func([]watch.Change) {}}
	err := withNoFreeDescriptor(t, func() error { return watch.Run(context.Background(), cfg) })
	if err == nil || !strings.Contains(err.Error(), "fs.inotify.max_user_instances") || !strings.Contains(err.Error(), "ulimit -n") {
		t.Errorf("Run with no inotify instance to be had: %v; want an error naming fs.inotify.max_user_instances and ulimit -n", err)
	}
	if len(unwatched) != 1 || unwatched[0] != "." {
		t.Errorf("Unwatched told %q, want the root (\".\") once", unwatched)
	}
}

// withNoFreeDescriptor runs f with the open-files limit lowered to the
// lowest free descriptor, so that the kernel gives no new one (EMFILE, as
// when inotify instances run out), and restores the limit after.
func withNoFreeDescriptor(t *testing.T, f func() error) error {
	t.Helper()
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	free, err := syscall.Dup(0)
	if err != nil {
		t.Fatal(err)
	}
	syscall.Close(free)
	low := old
	low.Cur = uint64(free)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
			t.Fatal(err)
		}
	}()
	return f()
}
