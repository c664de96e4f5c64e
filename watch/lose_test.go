package watch

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fsnotify/fsnotify"
	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/workspace"
)

// TestOverflowWatchesTheTreeAgain: after the kernel dropped events, a
// directory whose creation was among them is watched all the same, and
// Lost is told once; another error is only logged.
func TestOverflowWatchesTheTreeAgain(t *testing.T) {
	root := t.TempDir()
	if out, err := exec.Command("git", "-C", root, "init", "-q", "-b", "main").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	ws, err := workspace.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	rule, err := workspace.NewRule(ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rule.Close()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	lost := 0
	cfg := Config{Workspace: ws, Rule: rule, Report: func([]Change) {}, Lost: func() { lost++ }}
	cfg.setDefaults()
	wt := &watcher{cfg: cfg, w: w, log: hclog.NewNullLogger(), batch: newBatch(), unwatched: make(map[string]bool)}
	wt.addTree(ws.Root, false)

	// Directories made while no event is read: as if their creation had
	// been dropped.
	fresh := filepath.Join(ws.Root, "src", "fresh")
	if err := os.MkdirAll(fresh, 0o755); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(w.WatchList(), fresh) {
		t.Fatal("the new directory is watched before any event was handled")
	}
	wt.lose(errors.New("some other error"))
	if lost != 0 || slices.Contains(w.WatchList(), fresh) {
		t.Fatalf("another error: Lost told %d times, directory watched %v; want neither", lost, slices.Contains(w.WatchList(), fresh))
	}
	wt.lose(fsnotify.ErrEventOverflow)
	if lost != 1 {
		t.Fatalf("Lost told %d times after an overflow, want 1", lost)
	}
	for _, dir := range []string{filepath.Join(ws.Root, "src"), fresh} {
		if !slices.Contains(w.WatchList(), dir) {
			t.Errorf("%s not watched after the overflow", dir)
		}
	}
}
