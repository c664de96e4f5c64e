package integration_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadOnlyCommandsStartNothing: status, blockers, history and events
// on a workspace with no coordinator say so and exit 0 (status --json:
// 5), start no coordinator and create no state directory.
func TestReadOnlyCommandsStartNothing(t *testing.T) {
	r := bareRepo(t)
	state := filepath.Join(r.dir, ".git", "leasegate")
	for _, args := range [][]string{{"status"}, {"blockers"}, {"history", "README.md"}, {"events"}} {
		out, errs, code := r.lg(args...)
		if code != 0 || !strings.Contains(out, "no coordinator running (nothing is held)") {
			t.Errorf("leasegate %v with no coordinator: exit %d, want 0 saying none runs\nstdout: %s\nstderr: %s", args, code, out, errs)
		}
	}
	if _, errs, code := r.lg("status", "--json"); code != 5 || !strings.Contains(errs, "no coordinator running") {
		t.Errorf("status --json with no coordinator: exit %d, want 5 saying none runs: %s", code, errs)
	}
	if pids := servePIDs(r.dir); len(pids) != 0 {
		stopServe(t, r.dir)
		t.Fatalf("a read-only command started a coordinator (pids %v)", pids)
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("a read-only command created %s (stat: %v)", state, err)
	}
}

// TestNoWorkspaceMadeOutsideGit: outside a git checkout, acquire names
// the directory it would make a workspace of and wants --workspace; it
// makes nothing.
func TestNoWorkspaceMadeOutsideGit(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &repo{t: t, dir: dir, env: cleanEnv()}
	t.Cleanup(func() { stopServe(t, dir) })
	out, errs, code := r.lg("acquire", "a.txt", "--as", "alice")
	if code != 2 || !strings.Contains(errs, dir) || !strings.Contains(errs, "--workspace") {
		t.Errorf("acquire outside git: exit %d, want 2 naming %s and --workspace\nstdout: %s\nstderr: %s", code, dir, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, ".leasegate")); !os.IsNotExist(err) {
		t.Errorf("acquire outside git made a state directory (stat: %v)", err)
	}
	r.mustLG("acquire", "a.txt", "--as", "alice", "--workspace", dir)
}
