package integration_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHardLinkIsHeld: g.txt is a hard link to f.txt made before any lease.
// alice writes f.txt; bob's write of g.txt is held like any other
// contention, told which of alice's paths holds the file, blocked at the
// retry, and denied: the file keeps alice's content only.
func TestHardLinkIsHeld(t *testing.T) {
	r := newRepo(t, map[string]string{"f.txt": "old\n"})
	if err := os.Link(filepath.Join(r.dir, "f.txt"), filepath.Join(r.dir, "g.txt")); err != nil {
		t.Fatal(err)
	}
	alice := r.worker("alice", "echo alice >> f.txt; sleep 60")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("alice's output:\n%s", alice.out)
		}
	})
	eventually(t, 10*time.Second, "alice's lease on f.txt", func() bool { return r.holders()["f.txt"] == "alice" })
	bob := r.worker("bob", "echo bob >> g.txt")
	eventually(t, 10*time.Second, "bob's contention", func() bool {
		cs := r.status().Contentions
		return len(cs) == 1 && cs[0].Requester == "bob" && cs[0].Holder.Owner.Name == "alice"
	})
	id := waitBlockerFor(t, r, "bob", 10*time.Second+retryAfter)
	if rep := mustBlocker(t, r, id); rep.Holder.Owner.Name != "alice" || rep.Path != "g.txt" || rep.Holder.SameFileAs != "f.txt" {
		t.Fatalf("blocker on %s held by %+v, want g.txt held by alice as f.txt", rep.Path, rep.Holder)
	}
	denyUntilDone(t, r, bob, id, "bob")
	if bob.code == 0 {
		t.Fatalf("bob's write through the other name succeeded:\n%s", bob.out)
	}
	if got := r.read("g.txt"); got != "old\nalice\n" {
		t.Fatalf("g.txt = %q, want alice's write only", got)
	}
	if out := bob.out.String(); !strings.Contains(out, "g.txt (the same file as f.txt) is held by alice") {
		t.Fatalf("bob was not told which file holds g.txt:\n%s", out)
	}
	if h := r.holders(); h["g.txt"] != "" {
		t.Fatalf("g.txt leased to %s", h["g.txt"])
	}
}

// TestCheckoutCoversEveryName: a check-out of f.txt covers g.txt, a hard
// link to it made before: bob's write of g.txt is held.
func TestCheckoutCoversEveryName(t *testing.T) {
	r := newRepo(t, map[string]string{"f.txt": "old\n"})
	if err := os.Link(filepath.Join(r.dir, "f.txt"), filepath.Join(r.dir, "g.txt")); err != nil {
		t.Fatal(err)
	}
	r.mustLG("acquire", "--as", "alice", "f.txt")
	r.worker("bob", "echo bob >> g.txt")
	eventually(t, 10*time.Second, "bob's contention", func() bool {
		cs := r.status().Contentions
		return len(cs) == 1 && cs[0].Requester == "bob" && cs[0].Holder.Owner.Name == "alice"
	})
	if got := r.read("g.txt"); got != "old\n" {
		t.Fatalf("g.txt = %q while bob was held, want it untouched", got)
	}
}

// TestRunNameShownOnOneLine: an owner name holding a newline is refused
// by run on one line, quoted, so it cannot forge a second line of the
// message.
func TestRunNameShownOnOneLine(t *testing.T) {
	r := newRepo(t, nil)
	_, stderr, code := r.lg("run", "--as", "x\nleasegate: granted", "--", "true")
	if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, `register "x\nleasegate: granted"`) {
		t.Fatalf("run --as with a newline: exit %d, stderr %q; want 2 and the name quoted on one line", code, stderr)
	}
}
