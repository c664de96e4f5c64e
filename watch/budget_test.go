package watch_test

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/watch"
	"github.com/leasegate/leasegate/workspace"
)

// lockedBuffer is a log output the watcher's goroutine writes while the
// test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestBudget: the directories that would take the watcher past its
// budget (kqueue's descriptors on macOS and the BSDs, watches here) are
// left unwatched, which is said once at warning level naming the first
// of them, and told to Unwatched once; the watcher goes on reporting what
// it watches.
func TestBudget(t *testing.T) {
	ws, rule := checkout(t, "a", "b", "c")
	root := ws.Root
	var log lockedBuffer
	changes := make(chan watch.Change, 64)
	unwatched := make(chan string, 8)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- watch.Run(ctx, watch.Config{Workspace: ws, Rule: rule, Window: -1, Budget: 2, // the root and a
			Logger:    hclog.New(&hclog.LoggerOptions{Output: &log, Level: hclog.Warn}),
			Unwatched: func(rel string) { unwatched <- rel },
			Report: func(cs []watch.Change) {
				for _, c := range cs {
					changes <- c
				}
			}})
	}()
	defer func() { cancel(); <-done }()
	awaitChange(t, filepath.Join(root, "a", "x"), changes)
	out := log.String()
	if n := strings.Count(out, "cannot watch"); n != 1 || !strings.Contains(out, filepath.Join(root, "b")) || !strings.Contains(out, "descriptor budget (2)") {
		t.Errorf("log says %q (%d warnings), want one naming %s and the budget", out, n, filepath.Join(root, "b"))
	}
	if got := len(unwatched); got != 1 || <-unwatched != "b" {
		t.Errorf("Unwatched told %d times, want once, of b", got)
	}
}

// checkout is a fresh git checkout holding the directories dirs, and its
// gating rule, closed when the test ends.
func checkout(t *testing.T, dirs ...string) (*workspace.Workspace, *workspace.Rule) {
	t.Helper()
	root := t.TempDir()
	if out, err := exec.Command("git", "-C", root, "init", "-q", "-b", "main").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	for _, d := range dirs {
		mkdir(t, filepath.Join(root, d))
	}
	ws, err := workspace.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	rule, err := workspace.NewRule(ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rule.Close() })
	return ws, rule
}

// awaitChange writes the file at p until the watcher reports it; it
// fails after 10 s.
func awaitChange(t *testing.T, p string, changes <-chan watch.Change) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		write(t, p, "x")
		select {
		case c := <-changes:
			if strings.HasSuffix(p, filepath.FromSlash(c.Path)) {
				return
			}
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("no change of %s reported within 10s", p)
}
