package coordinator_test

import (
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// TestObserveChange: a change the watcher sees is recorded as ungated
// only when no lease covers its path and none covering it (file or glob)
// ended within the 5 s grace; one report per path per grace period.
func TestObserveChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		e.mutate("alice", "held.txt")
		e.mutate("bob", "gone.txt")
		release(t, e, e.checkout("bob", 0, "docs/**"))
		for i := range 1500 { // more ends than the set keeps once they expire
			release(t, e, e.checkout("carol", 0, fmt.Sprintf("churn/%d.txt", i)))
		}
		if _, err := e.c.End(e.ctx, "bob", "test"); err != nil {
			t.Fatal(err)
		}
		e.advanceTo(4 * time.Second)
		observe(t, e, "gone.txt", "docs/readme.md", "churn/7.txt", "held.txt", "free.txt", "free.txt")
		e.advanceTo(6 * time.Second)
		observe(t, e, "gone.txt", "docs/readme.md", "churn/8.txt", "held.txt")
		got := ungatedPaths(e)
		want := []string{"free.txt", "gone.txt", "docs/readme.md", "churn/8.txt"}
		if !slices.Equal(got, want) {
			t.Fatalf("ungated writes recorded = %q, want %q", got, want)
		}
	})
}

// TestObserveChangeOnCheckout: a change to a path covered only by a
// check-out is recorded as ungated and names the lease (its holder may
// have made it, or anyone); a path an auto lease covers is its holder's
// gated write.
func TestObserveChangeOnCheckout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		co := e.checkout("alice", 0, "co.txt", "dir/**")
		e.mutate("bob", "auto.txt")
		observe(t, e, "co.txt", "dir/x.txt", "auto.txt")
		if got, want := ungatedPaths(e), []string{"co.txt", "dir/x.txt"}; !slices.Equal(got, want) {
			t.Fatalf("ungated writes recorded = %q, want %q", got, want)
		}
		for _, ev := range e.events(gate.EventUngatedWrite) {
			if ev.LeaseID != co.ID {
				t.Errorf("ungated write of %s names lease %q, want alice's check-out %s", ev.Path, ev.LeaseID, co.ID)
			}
		}
		if e.c.CoversTree("dir") {
			t.Errorf("a check-out of dir/** leaves dir unwatched")
		}
	})
}

// TestObserveChangeGatedInCheckout: a write a gate granted the holder
// under its own check-out (no auto lease records it) is the holder's for
// the 5 s grace, each change seen extending it; a change of another path
// of the check-out, or of the same path once the grace has passed with no
// change, is still reported naming the check-out.
func TestObserveChangeGatedInCheckout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		co := e.checkout("alice", 0, "docs/**")
		if r := e.mutate("alice", "docs/a.md"); r.Outcome != leasegate.Granted {
			t.Fatalf("Mutate(alice, docs/a.md) = %+v, want granted under her check-out", r)
		}
		if got := e.held("alice", gate.KindAuto); len(got) != 0 {
			t.Fatalf("alice's auto leases = %q, want none: her check-out covers the write", got)
		}
		e.advanceTo(4 * time.Second)
		observe(t, e, "docs/a.md", "docs/b.md")
		e.advanceTo(8 * time.Second) // 4 s after the last change seen
		observe(t, e, "docs/a.md")
		e.advanceTo(14 * time.Second)
		observe(t, e, "docs/a.md")
		if got, want := ungatedPaths(e), []string{"docs/b.md", "docs/a.md"}; !slices.Equal(got, want) {
			t.Fatalf("ungated writes recorded = %q, want %q", got, want)
		}
		for _, ev := range e.events(gate.EventUngatedWrite) {
			if ev.LeaseID != co.ID {
				t.Errorf("ungated write of %s names lease %q, want alice's check-out %s", ev.Path, ev.LeaseID, co.ID)
			}
		}
	})
}

func release(t *testing.T, e *env, l gate.Lease) {
	t.Helper()
	_, err := e.c.Lease(e.ctx, leasegate.LeaseRequest{Op: gate.OpRelease, Owner: l.Owner, LeaseID: l.ID, Token: l.FencingToken})
	if err != nil {
		t.Fatalf("release %s = %v", l.ID, err)
	}
}

func observe(t *testing.T, e *env, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := e.c.ObserveChange(e.ctx, p, "write"); err != nil {
			t.Fatalf("ObserveChange(%s) = %v", p, err)
		}
	}
}

func ungatedPaths(e *env) []string {
	var out []string
	for _, ev := range e.events(gate.EventUngatedWrite) {
		out = append(out, ev.Path)
	}
	return out
}

// TestObserveLoss: lost watch events are recorded as an ungated "overflow"
// of the whole workspace, in the ledger and in status, once per 5 s grace
// however many overflows come in a burst.
func TestObserveLoss(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		for range 3 {
			if err := e.c.ObserveLoss(e.ctx); err != nil {
				t.Fatalf("ObserveLoss() = %v", err)
			}
		}
		e.advanceTo(6 * time.Second)
		if err := e.c.ObserveLoss(e.ctx); err != nil {
			t.Fatalf("ObserveLoss() = %v", err)
		}
		evs := e.events(gate.EventUngatedWrite)
		if len(evs) != 2 {
			t.Fatalf("%d ungated events after two bursts of lost events, want 2", len(evs))
		}
		for _, ev := range evs {
			if ev.Path != "." || ev.Reason != "overflow" || ev.Actor != "watcher" {
				t.Errorf("event %+v, want path \".\", reason overflow, actor watcher", ev)
			}
		}
		st := mustStatus(e.t, e.c)
		if n := len(st.Ungated); n != 2 || st.Ungated[1].Op != "overflow" || st.Ungated[1].Path != "." {
			t.Fatalf("status ungated = %+v, want the two overflows", st.Ungated)
		}
	})
}

// TestObserveGlobNamedFile: the watcher names files as the disk spells
// them; a change of the file named "*" or "app/[id]/page.tsx" is its
// holder's gated write, and a change of x.txt or app/a/page.tsx beside
// them is ungated (the leases, read as the globs the names spell, took
// them for their holder's). A directory named "[id]" leased whole is
// covered; one named "i" is not.
func TestObserveGlobNamedFile(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		e.mutate("alice", gate.Literal("*"), gate.Literal("app/[id]/page.tsx"))
		e.mutate("bob", gate.Subtree("gen/[id]"))
		for p, want := range map[string]bool{"*": true, "app/[id]/page.tsx": true, "x.txt": false, "app/a/page.tsx": false} {
			if got := e.c.Covers(p); got != want {
				t.Errorf("Covers(%q) = %v, want %v", p, got, want)
			}
		}
		if !e.c.CoversTree("gen/[id]") || e.c.CoversTree("gen/i") {
			t.Errorf("CoversTree(gen/[id]) = %v, CoversTree(gen/i) = %v; want true, false", e.c.CoversTree("gen/[id]"), e.c.CoversTree("gen/i"))
		}
		observe(t, e, "*", "app/[id]/page.tsx", "gen/[id]/a.go", "x.txt", "app/a/page.tsx", "gen/i/a.go")
		if got, want := ungatedPaths(e), []string{"x.txt", "app/a/page.tsx", "gen/i/a.go"}; !slices.Equal(got, want) {
			t.Fatalf("ungated writes recorded = %q, want %q", got, want)
		}
	})
}
