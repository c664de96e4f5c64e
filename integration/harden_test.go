package integration_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestGitConfigRunsNothing: a worker that configures commands in the
// repository (an fsmonitor hook, a clean filter) cannot have leasegate's
// own git runs (the sidecar's ls-files and check-ignore, the coordinator's
// status and diff-tree on commit) execute them outside its gate. The hook
// writes only where LEASEGATE_SIDECAR is unset: outside the worker. c.txt
// is touched right after the commit, before the coordinator's git status,
// which must then read it through its filter.
func TestGitConfigRunsNothing(t *testing.T) {
	r := newRepo(t, map[string]string{"f.txt": "alice's\n", "b.txt": "b\n", "c.txt": "c\n"})
	r.mustLG("acquire", "--as", "alice", "f.txt")
	hook := filepath.Join(t.TempDir(), "hook.sh")
	script := "#!/bin/sh\n[ -n \"$LEASEGATE_SIDECAR\" ] || echo pwned >> " + filepath.Join(r.dir, "f.txt") + "\ncat\n"
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	w := r.worker("bob", "git config core.fsmonitor "+hook+
		" && git config filter.evil.clean "+hook+" && git config filter.evil.required false"+
		" && echo 'c.txt filter=evil' > .git/info/attributes"+
		" && echo b >> b.txt && echo new > new.txt && touch .gitignore"+
		" && git add b.txt && git commit -qm b && touch c.txt && sleep 1 && echo more > new2.txt")
	if code := w.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("worker exit %d:\n%s", code, w.out)
	}
	eventually(t, 10*time.Second, "b.txt released on commit", func() bool { return r.holders()["b.txt"] == "" })
	if got := r.read("f.txt"); got != "alice's\n" {
		t.Fatalf("f.txt, held by alice, = %q: a configured command ran outside the gate", got)
	}
}
