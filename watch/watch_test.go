package watch_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"go.uber.org/goleak"

	"github.com/leasegate/leasegate/watch"
	"github.com/leasegate/leasegate/workspace"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// watched is a running watcher over a fresh git checkout that ignores
// build/. Its window runs on a mock clock that only the test goroutine
// advances, while it waits for reports.
type watched struct {
	root    string
	changes chan watch.Change
	batches atomic.Int64 // calls of Report
	clock   *clock.Mock
	covered sync.Map // workspace-relative paths taken as leased
	trees   sync.Map // workspace-relative directories taken as leased whole
}

func start(t *testing.T) *watched {
	t.Helper()
	root := t.TempDir()
	if out, err := exec.Command("git", "-C", root, "init", "-q", "-b", "main").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
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
	w := &watched{root: root, changes: make(chan watch.Change, 1024), clock: clock.NewMock()}
	ready := make(chan struct{})
	var once sync.Once
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- watch.Run(ctx, watch.Config{Workspace: ws, Rule: rule, Clock: w.clock, Report: func(cs []watch.Change) {
			w.batches.Add(1)
			for _, c := range cs {
				if c.Path == "src/.ready" {
					once.Do(func() { close(ready) })
					continue
				}
				w.changes <- c
			}
		}, Covered: func(rel string) bool {
			_, ok := w.covered.Load(rel)
			return ok
		}, CoveredTree: func(rel string) bool {
			_, ok := w.trees.Load(rel)
			return ok
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
			w.batches.Store(0)
			return w
		case <-time.After(50 * time.Millisecond):
			w.clock.Add(watch.DefaultWindow)
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

// next returns the next reported change, advancing the window's clock
// while it waits; it fails after 10 s without one.
func (w *watched) next(t *testing.T) watch.Change {
	t.Helper()
	timeout := time.After(10 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case c := <-w.changes:
			return c
		case <-tick.C:
			w.clock.Add(watch.DefaultWindow)
		case <-timeout:
			t.Fatal("no change reported within 10s")
		}
	}
}

// expect reads changes until want is seen; it fails on any change to a
// path in never.
func (w *watched) expect(t *testing.T, want watch.Change, never ...string) {
	t.Helper()
	for {
		c := w.next(t)
		for _, p := range never {
			if c.Path == p {
				t.Fatalf("reported %+v, want no change reported for %s", c, p)
			}
		}
		if c == want {
			return
		}
	}
}

// counts reads changes until last is reported and returns how often each
// path was reported before it.
func (w *watched) counts(t *testing.T, last watch.Change) map[string]int {
	t.Helper()
	seen := map[string]int{}
	for c := w.next(t); c != last; c = w.next(t) {
		seen[c.Path]++
	}
	return seen
}

func TestReportsGatedChanges(t *testing.T) {
	w := start(t)
	a := filepath.Join(w.root, "src", "a.go")
	write(t, a, "package a")
	w.expect(t, watch.Change{Path: "src/a.go", Op: "create"})
	f, err := os.OpenFile(a, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\n// more")
	f.Close()
	w.expect(t, watch.Change{Path: "src/a.go", Op: "write"})
	if err := os.Rename(a, filepath.Join(w.root, "src", "b.go")); err != nil {
		t.Fatal(err)
	}
	w.expect(t, watch.Change{Path: "src/a.go", Op: "rename"})
	w.expect(t, watch.Change{Path: "src/b.go", Op: "create"})
	if err := os.Remove(filepath.Join(w.root, "src", "b.go")); err != nil {
		t.Fatal(err)
	}
	w.expect(t, watch.Change{Path: "src/b.go", Op: "remove"})
}

// A file created right after its new directory appears before the watch on
// the directory does; the rescan of a new directory reports it.
func TestFileInNewDirectoryIsSeen(t *testing.T) {
	w := start(t)
	deep := filepath.Join(w.root, "pkg", "inner")
	mkdir(t, deep)
	write(t, filepath.Join(deep, "x.go"), "package inner")
	w.expect(t, watch.Change{Path: "pkg/inner/x.go", Op: "create"})
}

// Files moved in at once come in a few batches, and each is reported
// exactly once: a move is one event per file.
func TestManyFilesAreEachReportedOnce(t *testing.T) {
	w := start(t)
	const n = 300
	stage := filepath.Join(w.root, "build", "stage") // ignored: not watched
	mkdir(t, stage)
	for i := range n {
		write(t, filepath.Join(stage, fmt.Sprintf("f%03d.go", i)), "package src")
	}
	for i := range n {
		name := fmt.Sprintf("f%03d.go", i)
		if err := os.Rename(filepath.Join(stage, name), filepath.Join(w.root, "src", name)); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(w.root, "src", "last.go"), "package src")
	seen := w.counts(t, watch.Change{Path: "src/last.go", Op: "create"})
	for i := range n {
		if p := fmt.Sprintf("src/f%03d.go", i); seen[p] != 1 {
			t.Errorf("%s reported %d times, want once", p, seen[p])
		}
	}
	if b := w.batches.Load(); b > n/10 {
		t.Errorf("Report called %d times for %d files, want at most %d (batches)", b, n+1, n/10)
	}
}

// A directory with many files, moved in whole, is watched and read once:
// each of its files is reported once, and later changes in it are seen.
func TestNewDirectoryWithManyFiles(t *testing.T) {
	w := start(t)
	const n = 100
	stage := filepath.Join(w.root, "build", "pkg")
	mkdir(t, stage)
	for i := range n {
		write(t, filepath.Join(stage, fmt.Sprintf("f%03d.go", i)), "package pkg")
	}
	if err := os.Rename(stage, filepath.Join(w.root, "pkg")); err != nil {
		t.Fatal(err)
	}
	w.expect(t, watch.Change{Path: "pkg/f099.go", Op: "create"})
	write(t, filepath.Join(w.root, "pkg", "later.go"), "package pkg")
	seen := w.counts(t, watch.Change{Path: "pkg/later.go", Op: "create"})
	for i := range n - 1 {
		if p := fmt.Sprintf("pkg/f%03d.go", i); seen[p] > 0 {
			t.Errorf("%s reported again after the rescan (%d times), want once", p, seen[p])
		}
	}
}

// A file written many times in a row is judged once per batch, not once
// per event: its create and writes come in one batch, or now and then two
// (the reader fell behind when the batch was taken).
func TestRepeatedWritesAreOneChange(t *testing.T) {
	w := start(t)
	f, err := os.Create(filepath.Join(w.root, "src", "log.go"))
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		f.WriteString("// line\n")
	}
	f.Close()
	write(t, filepath.Join(w.root, "src", "last.go"), "package src")
	seen := w.counts(t, watch.Change{Path: "src/last.go", Op: "create"})
	if n := seen["src/log.go"]; n < 1 || n > 2 {
		t.Errorf("src/log.go reported %d times after 100 writes, want once (twice if the batch split)", n)
	}
}

// A path a lease covers is taken to be its holder's and not reported.
func TestCoveredPathsAreNotReported(t *testing.T) {
	w := start(t)
	w.covered.Store("src/leased.go", true)
	write(t, filepath.Join(w.root, "src", "leased.go"), "package src")
	write(t, filepath.Join(w.root, "src", "free.go"), "package src")
	w.expect(t, watch.Change{Path: "src/free.go", Op: "create"}, "src/leased.go")
}

// A directory leased whole is not watched while the lease lasts (nothing
// in it would be reported: it is the holder's), and is watched once the
// lease has ended, without reporting what it already holds.
func TestCoveredTreeIsWatchedOnceFree(t *testing.T) {
	w := start(t)
	w.trees.Store("gen", true)
	mkdir(t, filepath.Join(w.root, "gen", "sub"))
	write(t, filepath.Join(w.root, "gen", "sub", "old.go"), "package sub")
	write(t, filepath.Join(w.root, "src", "mark.go"), "package src")
	w.expect(t, watch.Change{Path: "src/mark.go", Op: "create"}, "gen/sub/old.go", "gen/sub", "gen")
	w.trees.Delete("gen")
	// Once the recheck has run the new write is seen; until then it may
	// not be, so write until it is.
	for i := 0; ; i++ {
		write(t, filepath.Join(w.root, "gen", "sub", "new.go"), fmt.Sprint(i))
		w.clock.Add(watch.DefaultRecheck / 4)
		select {
		case c := <-w.changes:
			if c.Path == "gen/sub/old.go" {
				t.Fatalf("reported %+v: a file written while its tree was leased", c)
			}
			if c.Path == "gen/sub/new.go" {
				return
			}
		case <-time.After(50 * time.Millisecond):
			w.clock.Add(watch.DefaultWindow)
		}
		if i == 200 {
			t.Fatal("a write in a directory whose lease ended was never reported")
		}
	}
}

// Ignored paths and git's own files are not gated: writes there are never
// reported, while a gated write after them still is.
func TestIgnoresWhatIsNotGated(t *testing.T) {
	w := start(t)
	mkdir(t, filepath.Join(w.root, "build"))
	write(t, filepath.Join(w.root, "build", "out.o"), "obj")
	write(t, filepath.Join(w.root, ".git", "scratch"), "x")
	write(t, filepath.Join(w.root, "src", "after.go"), "package src")
	w.expect(t, watch.Change{Path: "src/after.go", Op: "create"}, "build/out.o", "build", ".git/scratch")
}

func TestRunRequiresConfig(t *testing.T) {
	if err := watch.Run(context.Background(), watch.Config{}); err == nil {
		t.Error("Run(empty Config) = nil, want an error naming what is required")
	}
}

// A change of .gitignore changes what is gated from then on: a file it
// now ignores is not reported, though git had been asked about its
// directory before.
func TestGitignoreChangeIsFollowed(t *testing.T) {
	w := start(t)
	write(t, filepath.Join(w.root, "src", "x.log"), "1")
	w.expect(t, watch.Change{Path: "src/x.log", Op: "create"})
	write(t, filepath.Join(w.root, ".gitignore"), "build/\n*.log\n")
	w.expect(t, watch.Change{Path: ".gitignore", Op: "write"})
	write(t, filepath.Join(w.root, "src", "y.log"), "2")
	write(t, filepath.Join(w.root, "src", "after.go"), "package src")
	w.expect(t, watch.Change{Path: "src/after.go", Op: "create"}, "src/y.log")
}

// A directory .gitignore stops ignoring is watched from then on: a write
// in it that no lease covers is reported.
func TestDirectoryNoLongerIgnoredIsWatched(t *testing.T) {
	w := start(t)
	mkdir(t, filepath.Join(w.root, "build"))
	write(t, filepath.Join(w.root, "build", "old.o"), "1")
	write(t, filepath.Join(w.root, "src", "barrier.go"), "package src")
	w.expect(t, watch.Change{Path: "src/barrier.go", Op: "create"}, "build/old.o", "build")
	write(t, filepath.Join(w.root, ".gitignore"), "")
	w.expect(t, watch.Change{Path: ".gitignore", Op: "write"})
	write(t, filepath.Join(w.root, "build", "new.o"), "2")
	w.expect(t, watch.Change{Path: "build/new.o", Op: "create"})
}

// A change of leasegate.json changes what is gated from then on, as a
// .gitignore's does: a path it now excludes is not reported, and a
// directory git ignores that it now includes is watched.
func TestConfigChangeIsFollowed(t *testing.T) {
	w := start(t)
	mkdir(t, filepath.Join(w.root, "build", "schema"))
	write(t, filepath.Join(w.root, "src", "x.tmp"), "1")
	w.expect(t, watch.Change{Path: "src/x.tmp", Op: "create"})
	write(t, filepath.Join(w.root, workspace.ConfigFile), `{"exclude": ["src/*.tmp"], "include": ["build/schema/**"]}`)
	write(t, filepath.Join(w.root, "src", "barrier.go"), "package src")
	w.expect(t, watch.Change{Path: "src/barrier.go", Op: "create"})
	write(t, filepath.Join(w.root, "src", "y.tmp"), "2")
	write(t, filepath.Join(w.root, "build", "schema", "s.json"), "{}")
	w.expect(t, watch.Change{Path: "build/schema/s.json", Op: "create"}, "src/y.tmp")
}

// TestTransientNameIsNotReported: a file saved under a temporary name and
// renamed onto the file it replaces within one batch (as Claude Code's
// Write saves an existing file) is a change of that file alone: the
// temporary name, gone when the batch is judged, is not reported.
func TestTransientNameIsNotReported(t *testing.T) {
	w := start(t)
	a := filepath.Join(w.root, "src", "a.go")
	write(t, a, "package a")
	// The creation's write event may come a batch after its create
	// event; the barrier's report says both have been read.
	write(t, filepath.Join(w.root, "src", "barrier.go"), "package a")
	w.expect(t, watch.Change{Path: "src/barrier.go", Op: "create"})
	write(t, a+".tmp.4242.8b9a86478fca", "package a // saved")
	w.savedOnce(t, "src/a.go.tmp.4242.8b9a86478fca", "src/a.go")
}

// TestTemporaryNameRenamedLateIsNotReported: a file saved under a
// temporary name whose batch is judged before the rename (its writer was
// slow between the two, as a loaded machine makes Claude Code's Write) is
// still a change of the file it replaces alone: a new name is judged only
// once it has lasted a whole recheck period.
func TestTemporaryNameRenamedLateIsNotReported(t *testing.T) {
	w := start(t)
	a, other := filepath.Join(w.root, "src", "a.go"), filepath.Join(w.root, "src", "other.go")
	write(t, a, "package a")
	write(t, other, "package a")
	w.expect(t, watch.Change{Path: "src/other.go", Op: "create"})
	tmp := a + ".tmp.4242.8b9a86478fca"
	write(t, tmp, "package a // saved")
	// A write of a file that exists is judged in its batch: once it is
	// reported, the batch with the temporary name's events has been too.
	write(t, other, "package a // barrier")
	w.expect(t, watch.Change{Path: "src/other.go", Op: "write"})
	w.savedOnce(t, "src/a.go.tmp.4242.8b9a86478fca", "src/a.go")
}

// TestTemporaryNameInNewDirectoryIsNotReported: a temporary file found
// when a new directory is read (Claude Code's Write of a file in a
// directory it made) and renamed after that read is not reported either:
// the files found there are new names too.
func TestTemporaryNameInNewDirectoryIsNotReported(t *testing.T) {
	w := start(t)
	other := filepath.Join(w.root, "src", "other.go")
	write(t, other, "package a")
	w.expect(t, watch.Change{Path: "src/other.go", Op: "create"})
	stage := filepath.Join(w.root, "build", "docs") // ignored: not watched
	mkdir(t, stage)
	write(t, filepath.Join(stage, "a.md.tmp.4242.8b9a86478fca"), "new")
	if err := os.Rename(stage, filepath.Join(w.root, "docs")); err != nil {
		t.Fatal(err)
	}
	write(t, other, "package a // barrier")
	w.expect(t, watch.Change{Path: "src/other.go", Op: "write"})
	w.savedOnce(t, "docs/a.md.tmp.4242.8b9a86478fca", "docs/a.md")
}

// savedOnce renames tmp onto file (both workspace-relative), as a save
// through a temporary file ends, and fails unless the changes reported
// before a write after it name file once and tmp never.
func (w *watched) savedOnce(t *testing.T, tmp, file string) {
	t.Helper()
	if err := os.Rename(filepath.Join(w.root, filepath.FromSlash(tmp)), filepath.Join(w.root, filepath.FromSlash(file))); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(w.root, "src", "b.go"), "package a")
	seen := w.counts(t, watch.Change{Path: "src/b.go", Op: "create"})
	if seen[tmp] != 0 || seen[file] != 1 {
		t.Fatalf("changes reported %v, want %s once and not its temporary name", seen, file)
	}
}
