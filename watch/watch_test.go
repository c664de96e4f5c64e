package watch_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/leasegate/leasegate/watch"
	"github.com/leasegate/leasegate/workspace"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// start watches a fresh git checkout that ignores build/ and returns its
// root and the channel of reported changes.
func start(t *testing.T) (string, <-chan watch.Change) {
	t.Helper()
	root := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write(t, filepath.Join(root, ".gitignore"), "build/\n")
	mkdir(t, filepath.Join(root, "src"))
	ws, err := workspace.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	rule, err := workspace.NewRule(ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	changes := make(chan watch.Change, 64)
	ready := make(chan struct{})
	var once sync.Once
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- watch.Run(ctx, watch.Config{Workspace: ws, Rule: rule, Report: func(c watch.Change) {
			if c.Path == "src/.ready" {
				once.Do(func() { close(ready) })
				return
			}
			changes <- c
		}})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run() = %v, want nil after cancel", err)
		}
		rule.Close()
	})
	// The watches are in place once a probe write is seen.
	for i := 0; ; i++ {
		write(t, filepath.Join(root, "src", ".ready"), "")
		select {
		case <-ready:
			return root, changes
		case <-time.After(50 * time.Millisecond):
		}
		if i == 100 {
			t.Fatal("the watcher never reported the probe write")
		}
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

// expect reads changes until want is seen; it fails on any change to a
// path in never, and after 10 s without want.
func expect(t *testing.T, changes <-chan watch.Change, want watch.Change, never ...string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case c := <-changes:
			for _, p := range never {
				if c.Path == p {
					t.Fatalf("reported %+v, want no change reported for %s", c, p)
				}
			}
			if c == want {
				return
			}
		case <-timeout:
			t.Fatalf("no %+v reported", want)
		}
	}
}

func TestReportsGatedChanges(t *testing.T) {
	root, changes := start(t)
	a := filepath.Join(root, "src", "a.go")
	write(t, a, "package a")
	expect(t, changes, watch.Change{Path: "src/a.go", Op: "create"})
	f, err := os.OpenFile(a, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\n// more")
	f.Close()
	expect(t, changes, watch.Change{Path: "src/a.go", Op: "write"})
	if err := os.Rename(a, filepath.Join(root, "src", "b.go")); err != nil {
		t.Fatal(err)
	}
	expect(t, changes, watch.Change{Path: "src/a.go", Op: "rename"})
	if err := os.Remove(filepath.Join(root, "src", "b.go")); err != nil {
		t.Fatal(err)
	}
	expect(t, changes, watch.Change{Path: "src/b.go", Op: "remove"})
}

// A file created right after its new directory appears before the watch on
// the directory does; the rescan of a new directory reports it.
func TestFileInNewDirectoryIsSeen(t *testing.T) {
	root, changes := start(t)
	deep := filepath.Join(root, "pkg", "inner")
	mkdir(t, deep)
	write(t, filepath.Join(deep, "x.go"), "package inner")
	expect(t, changes, watch.Change{Path: "pkg/inner/x.go", Op: "create"})
}

// Ignored paths and git's own files are not gated: writes there are never
// reported, while a gated write after them still is.
func TestIgnoresWhatIsNotGated(t *testing.T) {
	root, changes := start(t)
	mkdir(t, filepath.Join(root, "build"))
	write(t, filepath.Join(root, "build", "out.o"), "obj")
	write(t, filepath.Join(root, ".git", "scratch"), "x")
	write(t, filepath.Join(root, "src", "after.go"), "package src")
	expect(t, changes, watch.Change{Path: "src/after.go", Op: "create"}, "build/out.o", "build", ".git/scratch")
}

func TestRunRequiresConfig(t *testing.T) {
	if err := watch.Run(context.Background(), watch.Config{}); err == nil {
		t.Error("Run(empty Config) = nil, want an error naming what is required")
	}
}
