package coordinator_test

import (
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
)

// history drives a coordinator through grants, a contention that becomes
// a blocker and is denied, a second blocker left open, check-outs with a
// renewal, a reminder and an eviction, a stop-idle release and a reclaim.
func history(t *testing.T, e *env) {
	t.Helper()
	e.register("carol")
	e.mutate("alice", "src/a.go")
	e.mutate("alice", "README.md")
	first := e.mutate("bob", "src/a.go")
	second := e.mutate("carol", "README.md")
	e.advanceTo(3 * time.Minute)
	if _, err := e.c.WaitContention(e.ctx, first.Contention.ID); err != nil {
		t.Fatalf("WaitContention = %v", err)
	}
	rep, _ := e.c.WaitContention(e.ctx, second.Contention.ID)
	if _, err := e.c.Resolve(e.ctx, rep.Blocker.ID, blocker.ActionDeny, "operator", "later"); err != nil {
		t.Fatalf("Resolve(deny) = %v", err)
	}
	docs := e.checkout("dave", 0, "docs/**")
	short := e.checkout("erin", 90*time.Minute, "site/**")
	// The short check-out's reminder is due at once; the scheduler sends
	// it on its own goroutine: let it run before the eviction ends the lease.
	synctest.Wait()
	e.checkout("frank", 0, "vendor/**")
	if _, err := e.c.Lease(e.ctx, leasegate.LeaseRequest{Op: gate.OpRenew, Owner: docs.Owner, LeaseID: docs.ID, Token: docs.FencingToken, TTL: 100 * time.Hour}); err != nil {
		t.Fatalf("renew = %v", err)
	}
	if _, err := e.c.Lease(e.ctx, leasegate.LeaseRequest{Op: gate.OpEvict, Owner: gate.Owner{Name: "ops"}, LeaseID: short.ID, Reason: "stale", Admin: "root"}); err != nil {
		t.Fatalf("evict = %v", err)
	}
	e.mutate("bob", "b.txt")
	e.mutate("carol", "c.txt")
	if _, err := e.c.Stop(e.ctx, "bob", "turn ended"); err != nil {
		t.Fatalf("Stop(bob) = %v", err)
	}
	e.live.set("carol", gate.Dead, deathEvidence)
	e.advanceTo(4 * time.Minute)
}

// snapshot is what must survive a restart, as JSON.
type snapshot struct {
	Leases   []gate.Lease
	Blockers []blocker.Report
	Open     []blocker.Report
	LastSeq  uint64
}

func snap(t *testing.T, c *coordinator.Coordinator) string {
	t.Helper()
	s := mustStatus(t, c)
	js, err := json.MarshalIndent(snapshot{Leases: s.Leases, Blockers: mustBlockers(t, c, true), Open: mustBlockers(t, c, false), LastSeq: s.LastSeq}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(js)
}

// TestReplayGivesSameState: a coordinator opened on the same ledger
// reports the same leases and blocker book as the one that wrote it.
func TestReplayGivesSameState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		history(t, e)
		before := snap(t, e.c)
		if n := len(mustBlockers(e.t, e.c, true)); n != 2 {
			t.Fatalf("%d blockers in the book, want 2", n)
		}
		e.reopen()
		if after := snap(t, e.c); after != before {
			t.Fatalf("state after replay differs.\nbefore:\n%s\nafter:\n%s", before, after)
		}
	})
}

// TestReplayKeepsCounters: after a restart new fencing tokens continue
// above every earlier one, and a check-out already reminded is not
// reminded again.
func TestReplayKeepsCounters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		history(t, e)
		var top uint64
		for _, ev := range e.events(gate.EventGranted) {
			top = max(top, ev.Lease.FencingToken)
		}
		reminded := len(e.events(gate.EventReminded))
		if reminded != 1 {
			t.Fatalf("%d reminders before the restart, want 1 (the short check-out)", reminded)
		}
		e.reopen()
		r := e.mutate("alice", "new.txt")
		if tok := r.Leases[0].FencingToken; tok <= top {
			t.Fatalf("fencing token after restart %d, want above %d", tok, top)
		}
		e.advanceTo(2 * time.Hour)
		if n := len(e.events(gate.EventReminded)); n != reminded {
			t.Fatalf("%d reminders after the restart, want still %d", n, reminded)
		}
	})
}

// TestStatusLastSeqFollowsLedger: Status().LastSeq is the seq of the last
// committed event, so a client that streams events after it misses none
// and replays none.
func TestStatusLastSeqFollowsLedger(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		e.mutate("alice", "a.txt")
		all, err := e.c.History(e.ctx, gate.NoLease, "", 0)
		if err != nil || len(all) == 0 {
			t.Fatalf("History() = %d events, %v", len(all), err)
		}
		if got, want := mustStatus(e.t, e.c).LastSeq, all[len(all)-1].Seq; got != want {
			t.Fatalf("Status().LastSeq = %d, want %d (the last committed event)", got, want)
		}
	})
}
