package integration_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestBindMountAliasGated: a bind mount shows the workspace at another
// path; a worker's write through it is gated as the workspace file it
// changes (it passed as a write outside the workspace, ungated), and its
// write into the state directory through it is refused.
func TestBindMountAliasGated(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	view := t.TempDir()
	if out, err := exec.Command("mount", "--bind", r.dir, view).CombinedOutput(); err != nil {
		t.Skipf("cannot bind-mount the workspace (needs root): %v: %s", err, out)
	}
	t.Cleanup(func() { detachMount(view) })
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
