package integration_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
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
	for _, name := range []string{".git/config", ".git/info/attributes"} {
		recorded := false
		for _, e := range r.history(name) {
			recorded = recorded || (e.Type == gate.EventRuleChanged && e.Actor == "bob")
		}
		if !recorded {
			t.Errorf("no rule.changed event by bob for %s", name)
		}
	}
}

// TestRulePoisoning: a worker cannot make a file alice holds ungated by
// untracking and excluding it (the write is still gated: it meets alice's
// lease and blocks), nor change leasegate.json (refused); its change of
// .git/info/exclude is recorded with its name.
func TestRulePoisoning(t *testing.T) {
	r := newRepo(t, map[string]string{"f.txt": "alice's\n"})
	r.mustLG("acquire", "--as", "alice", "f.txt")
	w := r.worker("bob", `echo '{"exclude":["f.txt"]}' > leasegate.json && exit 3
git rm -q --cached f.txt && echo f.txt >> .git/info/exclude && echo bob > f.txt`)
	id := waitBlockerFor(t, r, "bob", 20*time.Second)
	if b := mustBlocker(t, r, id); b.Path != "f.txt" {
		t.Fatalf("blocker on %q, want f.txt", b.Path)
	}
	denyUntilDone(t, r, w, id, "bob")
	if w.code == 3 {
		t.Fatal("a worker wrote leasegate.json")
	}
	if _, err := os.Stat(filepath.Join(r.dir, "leasegate.json")); err == nil {
		t.Fatal("leasegate.json exists")
	}
	if got := r.read("f.txt"); got != "alice's\n" {
		t.Fatalf("f.txt = %q after bob's poisoned write", got)
	}
	recorded := false
	for _, e := range r.history(".git/info/exclude") {
		recorded = recorded || (e.Type == gate.EventRuleChanged && e.Actor == "bob")
	}
	if !recorded {
		t.Fatal("no rule.changed event by bob for .git/info/exclude")
	}
}
