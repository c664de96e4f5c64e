package integration_test

import (
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// TestReleaseAfterRebaseAndMerge: a rebase commits several times in a row
// and a merge commit changes nothing against HEAD's own tree, yet every
// file the worker committed is released once clean, while it keeps running.
func TestReleaseAfterRebaseAndMerge(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"})
	r.write("c.txt", "c on main\n")
	r.git("commit", "-qam", "main moves on")
	r.git("branch", "feature", "HEAD~1")
	w := r.worker("alice", "git switch -q feature && echo x >> a.txt && git commit -qam a && echo y >> b.txt && git commit -qam b"+
		" && git rebase -q main && git switch -q main && git merge -q --no-ff -m merge feature && sleep 4")
	eventually(t, 8*time.Second, "release of the files the rebase and the merge committed", func() bool {
		h := r.holders()
		return r.git("log", "-1", "--format=%s") == "merge\n" && h["a.txt"] == "" && h["b.txt"] == ""
	})
	if code := w.wait(t, 10*time.Second); code != 0 {
		t.Fatalf("worker exit %d, want 0; output:\n%s", code, w.out)
	}
	for _, name := range []string{"a.txt", "b.txt"} {
		released := false
		for _, e := range r.history(name) {
			released = released || (e.Type == gate.EventReleased && strings.HasPrefix(e.Reason, "committed in "))
		}
		if !released {
			t.Errorf("no release on commit of %s in its history", name)
		}
	}
}
