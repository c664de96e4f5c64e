package sidecar

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/internal/servicetest"
	"github.com/leasegate/leasegate/workspace"
)

// TestViewWatchesTheGatedTree: the FUSE view is told to watch the root
// and the gated directories only, not .git/'s internals, the state
// directory or a tree git ignores.
func TestViewWatchesTheGatedTree(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", root, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	for _, d := range []string{"src/a", "build/x", ".git/leasegate"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("build/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	s := newTestSidecar(t, ws)
	for rel, want := range map[string]bool{".": true, "src": true, "src/a": true, "new": true,
		".git": false, ".git/objects": false, ".git/leasegate": false, "build": false, "build/x": false} {
		if got := s.viewWatches(filepath.Join(root, rel)); got != want {
			t.Errorf("viewWatches(%s) = %v, want %v", rel, got, want)
		}
	}
}

// reportRecorder is a coordinator that records the ungated writes
// reported to it.
type reportRecorder struct {
	*servicetest.Script
	mu       sync.Mutex
	reported []leasegate.UngatedWrite
}

func (r *reportRecorder) ReportUngated(_ context.Context, w leasegate.UngatedWrite) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reported = append(r.reported, w)
	return nil
}

// TestViewUnwatchedIsRecorded: the directory whose watch the view's
// kernel refused at its limit is recorded with the coordinator, as the
// worker's, without the view's request waiting for it.
func TestViewUnwatchedIsRecorded(t *testing.T) {
	rec := &reportRecorder{Script: servicetest.New()}
	s, _ := fakeSidecar(t, rec.Script)
	s.cfg.Client, s.unwatched = rec, make(chan string, 1)
	dir := filepath.Join(s.cfg.Workspace.Root, "src", "b")
	s.viewUnwatched(dir, syscall.ENOSPC)
	s.viewUnwatched(dir, syscall.ENOSPC) // one is pending: this one must not wait
	s.reportUnwatched(context.Background())
	want := leasegate.UngatedWrite{Path: "src/b", Op: leasegate.OpViewUnwatched, Reporter: "alice"}
	if len(rec.reported) != 1 || rec.reported[0] != want {
		t.Errorf("reported %+v, want %+v", rec.reported, want)
	}
}
