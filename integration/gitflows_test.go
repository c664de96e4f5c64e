package integration_test

import (
	"os"
	"path/filepath"
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
		if !releasedOnCommit(r, name) {
			t.Errorf("no release on commit of %s in its history", name)
		}
	}
}

// TestGitRmLeavesItsDirectoryFree: after removing a file, git tries to
// remove its directory too and expects ENOTEMPTY while anything is left
// there. That failed rmdir neither waits for another owner's file in the
// directory (a contention, then a blocker halting the worker) nor leases
// the directory's whole subtree to the worker.
func TestGitRmLeavesItsDirectoryFree(t *testing.T) {
	r := newRepo(t, map[string]string{"docs/a.txt": "a\n", "docs/b.txt": "b\n", "docs/c.txt": "c\n"})
	alice := r.worker("alice", "echo x >> docs/a.txt && sleep 6")
	eventually(t, 5*time.Second, "alice's lease on docs/a.txt", func() bool { return r.holders()["docs/a.txt"] == "alice" })
	bob := r.worker("bob", "git rm -q docs/b.txt && rmdir docs; echo rmdir=$? && touch bob.done && sleep 6")
	eventually(t, 10*time.Second, "bob's git rm", func() bool { _, err := os.Stat(filepath.Join(r.dir, "bob.done")); return err == nil })
	if h := r.holders(); h["docs/**"] != "" || h["docs/b.txt"] != "bob" {
		t.Errorf("leases after bob's git rm: %v, want docs/b.txt bob's and no lease of docs/**", h)
	}
	checkNothingWaited(t, r, "docs/**", "bob's git rm")
	r.mustLG("stop", "--as", "bob")
	bob.wait(t, 15*time.Second)
	if !strings.Contains(bob.out.String(), "rmdir=1") {
		t.Errorf("rmdir of the non-empty docs did not fail as rmdir does; output:\n%s", bob.out)
	}
	alice.wait(t, 15*time.Second)
}

// checkNothingWaited fails when anything under pattern met a contention,
// or a blocker is open, after what was done.
func checkNothingWaited(t *testing.T, r *repo, pattern, what string) {
	t.Helper()
	if evs := r.history(pattern); hasEvent(evs, gate.EventContention) {
		t.Errorf("%s contended on %s: %v", what, pattern, evs)
	}
	if bs := r.openBlockers(); len(bs) != 0 {
		t.Errorf("open blockers after %s: %v", what, bs)
	}
}

// TestReleaseCommittedDirectories: a directory the worker made, and both
// names of one it moved with git mv, are leased whole; once committed,
// with nothing beneath left dirty, the commit releases them.
func TestReleaseCommittedDirectories(t *testing.T) {
	r := newRepo(t, map[string]string{"old/a.txt": "a\n"})
	w := r.worker("alice", "mkdir -p pkg/sub && echo b > pkg/sub/b.txt && git add pkg && git commit -qm pkg"+
		" && git mv old new && git commit -qm moved && touch done.txt && sleep 4")
	eventually(t, 8*time.Second, "the release of pkg/**, old/** and new/**", func() bool {
		_, err := os.Stat(filepath.Join(r.dir, "done.txt"))
		h := r.holders()
		return err == nil && h["pkg/**"] == "" && h["old/**"] == "" && h["new/**"] == ""
	})
	w.wait(t, 10*time.Second)
	if !releasedOnCommit(r, "pkg/**") {
		t.Error("no release on commit of pkg/** in its history")
	}
}

// releasedOnCommit reports whether path's history holds a release on commit.
func releasedOnCommit(r *repo, path string) bool {
	_, ok := commitRelease(r, path)
	return ok
}

// commitRelease returns the release on commit in path's history.
func commitRelease(r *repo, path string) (gate.Event, bool) {
	for _, e := range r.history(path) {
		if e.Type == gate.EventReleased && strings.HasPrefix(e.Reason, "committed in ") {
			return e, true
		}
	}
	return gate.Event{}, false
}

// TestReleaseCommittedSavedThroughTemporary: sed -i and an editor's
// atomic save write a temporary name and rename it onto the file; once the
// file is committed, the temporary name's lease goes with the file's, so
// no later save through the same name waits for the committer.
func TestReleaseCommittedSavedThroughTemporary(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	r.worker("alice", "sed -i s/a/x/ a.txt && python3 -c \"import os; open('b.txt.tmp','w').write('y'); os.replace('b.txt.tmp','b.txt')\""+
		" && git commit -qam saved && mkdir build && touch build/done && sleep 30")
	eventually(t, 8*time.Second, "the release of every lease alice took", func() bool {
		_, err := os.Stat(filepath.Join(r.dir, "build", "done"))
		return err == nil && len(r.holders()) == 0
	})
}

// TestGitProgressWaitsForHeldFile: git reset --hard shows progress even
// off a terminal, ticking with SIGALRM every second (its handler restarts
// interrupted syscalls). The tick does not end the wait for a file another
// worker holds: the write waits for its one retry and halts on the
// blocker, and the operator's deny fails it with EBUSY, not EINTR.
func TestGitProgressWaitsForHeldFile(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	alice := r.worker("alice", "echo alice >> a.txt && sleep 20")
	eventually(t, 5*time.Second, "alice's lease on a.txt", func() bool { return r.holders()["a.txt"] == "alice" })
	r.write("b.txt", "changed\n")
	bob := r.start("run", "--as", "bob", "--retry-after", "3s", "--", "git", "reset", "--hard")
	id := waitBlockerFor(t, r, "bob", 20*time.Second)
	denyUntilDone(t, r, bob, id, "bob")
	if out := bob.out.String(); strings.Contains(out, "EINTR") || strings.Contains(out, "Interrupted system call") || !strings.Contains(out, "Device or resource busy") {
		t.Errorf("git reset --hard against a held file did not end in the operator's deny; output:\n%s", out)
	}
	if got := r.read("a.txt"); got != "a\nalice\n" {
		t.Errorf("a.txt = %q after the denied reset, want alice's change kept", got)
	}
	kill(alice.cmd.Process.Pid)
}

// TestWorktreeInsideCheckoutJoinsIt: a linked worktree made inside the
// checkout (git worktree add wt) is part of the checkout's tree, which
// gates it: a worker started inside it joins the checkout's workspace, so
// a file there has one owner whichever directory its writers started in,
// and its commit releases what it committed.
func TestWorktreeInsideCheckoutJoinsIt(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	r.git("worktree", "add", "-q", "wt")
	alice := r.worker("alice", "echo alice >> wt/a.txt && sleep 20")
	eventually(t, 5*time.Second, "alice's lease on wt/a.txt", func() bool { return r.holders()["wt/a.txt"] == "alice" })
	carol := r.start("run", "--as", "carol", "--workspace", filepath.Join(r.dir, "wt"), "--retry-after", "1s", "--",
		"sh", "-c", "cd wt && echo carol >> a.txt")
	waitBlockerFor(t, r, "carol", 20*time.Second)
	if got := r.read("wt/a.txt"); got != "a\nalice\n" {
		t.Errorf("wt/a.txt = %q while carol waits, want only alice's change", got)
	}
	kill(carol.cmd.Process.Pid)
	kill(alice.cmd.Process.Pid)
	dave := r.start("run", "--as", "dave", "--workspace", filepath.Join(r.dir, "wt"), "--",
		"sh", "-c", "cd wt && echo dave > b.txt && git add b.txt && git commit -qm dave && mkdir -p ../build && touch ../build/done && sleep 20")
	eventually(t, 15*time.Second, "dave's commit in the worktree", func() bool {
		_, err := os.Stat(filepath.Join(r.dir, "build", "done"))
		return err == nil && releasedOnCommit(r, "wt/b.txt")
	})
	kill(dave.cmd.Process.Pid)
}
