package coordinator_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
)

// folded makes a coordinator whose table folds case, as on macOS's
// default volumes and on Windows.
func folded(c *coordinator.Config) { c.Folding = gate.FoldCase }

// TestFoldedReleaseCommitted: where the volume folds case, git prints a
// committed file as its index spells it; the committer's lease on the file
// in another spelling is released once the file is clean, and kept while
// the file, spelt as git spells it, is still being changed.
func TestFoldedReleaseCommitted(t *testing.T) {
	repo := gitRepo(t)
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, folded, func(c *coordinator.Config) { c.Workspace = repo })
		e.mutate("alice", "Src/X.txt")
		e.mutate("alice", "LIB/y.TXT")
		for _, dir := range []string{"src", "lib"} {
			if err := os.Mkdir(filepath.Join(repo, dir), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		writeFile(t, repo, "src/x.txt", "x\n")
		writeFile(t, repo, "lib/y.txt", "y\n")
		runGit(t, repo, "add", ".")
		runGit(t, repo, "commit", "-q", "-m", "work")
		writeFile(t, repo, "lib/y.txt", "y, still being changed\n")

		released, err := e.c.ReleaseCommitted(e.ctx, "alice")
		if err != nil {
			t.Fatalf("ReleaseCommitted(alice) = %v", err)
		}
		if len(released) != 1 || !slices.Equal(released[0].Scope.Paths, []string{"Src/X.txt"}) {
			t.Fatalf("ReleaseCommitted(alice) released %v, want the lease on Src/X.txt (committed as src/x.txt)", released)
		}
		if got := e.held("alice", gate.KindAuto); !slices.Equal(got, []string{"LIB/y.TXT"}) {
			t.Fatalf("alice holds %q after the commit, want [LIB/y.TXT] (lib/y.txt changed since)", got)
		}
	})
}

// TestFoldedCoversAndTree: the watcher's questions fold case as the table
// does: a change to src/a.go is the holder's of Src/A.go, and a tree
// leased as Vendor/** is covered whole in every spelling.
func TestFoldedCoversAndTree(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, folded, slowLiveness)
		e.mutate("alice", "Src/A.go")
		if _, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: "bob", Op: "mkdir", Paths: []string{"Vendor/**"}, Try: true}); err != nil {
			t.Fatal(err)
		}
		for _, rel := range []string{"src/a.go", "SRC/A.GO", "vendor/x/y.go"} {
			if !e.c.Covers(rel) {
				t.Errorf("Covers(%q) = false, want true", rel)
			}
		}
		for dir, want := range map[string]bool{"vendor": true, "VENDOR/x": true, "Vendor": true, "vendorx": false, "src": false} {
			if got := e.c.CoversTree(dir); got != want {
				t.Errorf("CoversTree(%q) with Vendor/** leased = %v, want %v", dir, got, want)
			}
		}
	})
}

// TestFoldedHistoryAndContention: the history of src/x.txt holds the grant
// of Src/X.txt, and a write refused for that lease names the file it
// conflicts on in the spelling asked, not the first file of the request.
func TestFoldedHistoryAndContention(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, folded)
		held := e.mutate("alice", "Src/X.txt")
		evs, err := e.c.History(e.ctx, gate.NoLease, "src/x.txt", 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != 1 || evs[0].Type != gate.EventGranted || evs[0].Lease.ID != held.Leases[0].ID {
			t.Fatalf("History(src/x.txt) = %d events, want alice's grant of Src/X.txt", len(evs))
		}
		if r := e.mutate("bob", "a.txt", "SRC/X.TXT"); r.Outcome != leasegate.Contended {
			t.Fatalf("bob's Mutate(a.txt, SRC/X.TXT) = %s, want contended", r.Outcome)
		}
		hbs := e.events(gate.EventContention)
		if len(hbs) != 1 || hbs[0].Path != "SRC/X.TXT" {
			t.Fatalf("contention heartbeats %+v, want one on SRC/X.TXT", hbs)
		}
	})
}

// TestFoldedObserveChange: the watcher names a file as the disk spells
// it; where the volume folds case, a change of src/gone.txt just after
// the lease on Src/Gone.txt ended, of lib/x.txt just after a check-out of
// Lib/** ended, and of docs/A.md just after its holder's gated write of
// Docs/a.md under her check-out, are the holders' writes, not ungated.
func TestFoldedObserveChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, folded)
		e.mutate("bob", "Src/Gone.txt")
		release(t, e, e.checkout("bob", 0, "Lib/**"))
		if _, err := e.c.End(e.ctx, "bob", "test"); err != nil {
			t.Fatal(err)
		}
		e.checkout("alice", 0, "Docs/**")
		if r := e.mutate("alice", "Docs/a.md"); r.Outcome != leasegate.Granted {
			t.Fatalf("Mutate(alice, Docs/a.md) = %+v, want granted under her check-out", r)
		}
		e.advanceTo(4 * time.Second)
		observe(t, e, "src/gone.txt", "LIB/x.txt", "docs/A.md", "free.txt")
		if got, want := ungatedPaths(e), []string{"free.txt"}; !slices.Equal(got, want) {
			t.Fatalf("ungated writes recorded = %q, want %q", got, want)
		}
	})
}

// TestFoldedContentionJoined: where the volume folds case, the same
// write asked again in another case joins the contention the first
// started: one heartbeat, one retry.
func TestFoldedContentionJoined(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, folded)
		e.mutate("alice", "Src/X.txt")
		first := e.mutate("bob", "src/x.txt")
		again := e.mutate("bob", "SRC/X.TXT")
		if first.Contention == nil || again.Contention == nil {
			t.Fatalf("bob's Mutate(src/x.txt) = %s, Mutate(SRC/X.TXT) = %s, want both contended", first.Outcome, again.Outcome)
		}
		if again.Contention.ID != first.Contention.ID {
			t.Fatalf("bob's Mutate(SRC/X.TXT) is in contention %s, want it to join %s of Mutate(src/x.txt)", again.Contention.ID, first.Contention.ID)
		}
		if n := len(e.events(gate.EventContention)); n != 1 {
			t.Fatalf("%d contention heartbeats, want 1", n)
		}
	})
}
