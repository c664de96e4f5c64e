package integration_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBindMountAliasGated: a bind mount shows the workspace at another
// path; a worker's write through it is gated as the workspace file it
// changes (it passed as a write outside the workspace, ungated), and its
// write into the state directory through it is refused.
func TestBindMountAliasGated(t *testing.T) {
	r, view := bindMountedRepo(t)
	end := filepath.Join(t.TempDir(), "end")
	w := r.worker("bob", "echo n > "+view+"/new.txt && ! echo z > "+view+"/.git/leasegate/evil && "+waitFor(end))
	eventually(t, 8*time.Second, "bob's lease on new.txt, written through the bind mount", func() bool {
		return r.holders()["new.txt"] == "bob"
	})
	touch(t, end)
	if code := w.wait(t, 10*time.Second); code != 0 {
		t.Fatalf("worker exit %d; output:\n%s", code, w.out)
	}
	if _, err := os.Stat(filepath.Join(r.dir, ".git", "leasegate", "evil")); err == nil {
		t.Errorf("the worker wrote the state directory through the bind mount %s", view)
	}
}

// TestBindMountAliasHookGated: an agent's hook gates a write it names
// through a bind mount of the workspace as the workspace file (it let it
// through as a write outside the workspace), and refuses one into the
// state directory through it.
func TestBindMountAliasHookGated(t *testing.T) {
	r, view := bindMountedRepo(t)
	ev := filepath.Join(t.TempDir(), "pre-write.json")
	if err := os.WriteFile(ev, []byte(toolWriteAt("s1", r.dir, filepath.Join(view, "hooked.txt"))), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, errs, code := r.lgStdin(ev, "hook", "claude-code"); code != 0 || out != "" {
		t.Fatalf("hook claude-code = exit %d, %q, want the write allowed\nstderr: %s", code, out, errs)
	}
	if h := r.holders()["hooked.txt"]; h == "" {
		t.Errorf("hooked.txt, written through the bind mount %s, is not leased; leases: %v", view, r.holders())
	}
	state := filepath.Join(t.TempDir(), "state-write.json")
	if err := os.WriteFile(state, []byte(toolWriteAt("s1", r.dir, filepath.Join(view, ".git", "leasegate", "evil"))), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, _, _ := r.lgStdin(state, "hook", "claude-code"); !strings.Contains(out, `"deny"`) {
		t.Errorf("hook claude-code on the state directory through the bind mount = %q, want a denial", out)
	}
}

// TestBindMountAliasArgPath: an operator's command takes a file named
// through a bind mount of the workspace for the workspace file (acquire
// refused it as outside the workspace).
func TestBindMountAliasArgPath(t *testing.T) {
	r, view := bindMountedRepo(t)
	if out, errs, code := r.lg("acquire", filepath.Join(view, "a.txt"), "--as", "op"); code != 0 {
		t.Fatalf("acquire %s = exit %d\nstdout: %s\nstderr: %s", filepath.Join(view, "a.txt"), code, out, errs)
	}
	if h := r.holders()["a.txt"]; h != "op" {
		t.Errorf("a.txt is held by %q, want op; leases: %v", h, r.holders())
	}
}

// bindMountedRepo is a workspace with a coordinator and a bind mount of
// its root at another path, removed when the test ends; it skips the test
// where mounting is not allowed.
func bindMountedRepo(t *testing.T) (*repo, string) {
	t.Helper()
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	view := t.TempDir()
	if out, err := exec.Command("mount", "--bind", r.dir, view).CombinedOutput(); err != nil {
		t.Skipf("cannot bind-mount the workspace (needs root): %v: %s", err, out)
	}
	t.Cleanup(func() { detachMount(view) })
	return r, view
}
