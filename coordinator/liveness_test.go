package coordinator_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
)

const deathEvidence = "pid 4242 is gone (start time 1700000000000 no longer running)"

// TestDeadHolderReclaimedAtOnce: when the prober says the holder is dead,
// a contending write is granted at once (no contention, no 180 s wait),
// and the ledger records each reclaim with its evidence, the owner's end
// and a notice.
func TestDeadHolderReclaimedAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		held := e.mutate("alice", "src/a.go")
		e.advanceTo(5 * time.Second)
		e.live.set("alice", gate.Dead, deathEvidence)
		r := e.mutate("bob", "src/a.go")
		if r.Outcome != leasegate.Granted {
			t.Fatalf("Mutate(bob) over a dead holder = %s, want granted at once", r.Outcome)
		}
		if n := len(e.events(gate.EventContention)); n != 0 {
			t.Fatalf("%d contention heartbeats over a dead holder, want 0", n)
		}
		checkReclaimed(t, e, "alice", held.Leases)
		if _, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"b.txt"}}); !errors.Is(err, gate.ErrNotFound) {
			t.Fatalf("Mutate by the reclaimed owner = %v, want ErrNotFound (gone)", err)
		}
	})
}

// checkReclaimed checks the ledger's record of a reclaim of owner's leases
// want: one lease.reclaimed each with the evidence, an owner.gone, and a
// notice to the owner (also delivered to Notify).
func checkReclaimed(t *testing.T, e *env, owner string, want []gate.Lease) {
	t.Helper()
	var ids []gate.LeaseID
	for _, ev := range e.events(gate.EventReclaimed) {
		ids = append(ids, ev.LeaseID)
		var v gate.Liveness
		if err := json.Unmarshal(ev.Data, &v); err != nil || v.Status != gate.Dead || !slices.Equal(v.Evidence, []string{deathEvidence}) {
			t.Errorf("reclaim of %s carries %s (%v), want the dead verdict with its evidence", ev.LeaseID, ev.Data, err)
		}
		if !strings.Contains(ev.Reason, deathEvidence) || ev.At.IsZero() {
			t.Errorf("reclaim of %s: reason %q at %s, want the evidence and a time", ev.LeaseID, ev.Reason, ev.At)
		}
	}
	for _, l := range want {
		if !slices.Contains(ids, l.ID) {
			t.Errorf("no lease.reclaimed for %s of %s (reclaimed %v)", l.ID, owner, ids)
		}
		if got := e.lease(l.ID); got.State != gate.StateReclaimed {
			t.Errorf("lease %s is %s, want reclaimed", l.ID, got.State)
		}
	}
	gone := e.events(gate.EventOwnerGone)
	if len(gone) != 1 || gone[0].Actor != owner || !strings.Contains(gone[0].Reason, deathEvidence) {
		t.Fatalf("owner.gone events %+v, want one for %s with the evidence", gone, owner)
	}
	synctest.Wait()
	if ns := e.notices.of(leasegate.NoticeReclaimed); len(ns) != 1 || ns[0].Owner != owner {
		t.Fatalf("reclaim notices %+v, want one to %s", ns, owner)
	}
}

// TestLivenessLoopReclaimsDeadOwner: the liveness loop (every 500 ms) and
// CheckLiveness reclaim dead owners' leases with no request involved.
func TestLivenessLoopReclaimsDeadOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		held := e.mutate("alice", "a.txt")
		e.live.set("alice", gate.Dead, deathEvidence)
		e.advanceTo(coordinator.DefaultLivenessEvery - time.Millisecond)
		if got := e.held("alice", gate.KindAuto); len(got) != 1 {
			t.Fatalf("alice holds %q before the first liveness check, want a.txt", got)
		}
		e.advanceTo(coordinator.DefaultLivenessEvery)
		if got := e.held("alice", gate.KindAuto); len(got) != 0 {
			t.Fatalf("dead alice still holds %q after a liveness check", got)
		}
		checkReclaimed(t, e, "alice", held.Leases)
	})
}

// TestCheckLivenessReclaimsDeadOwner: CheckLiveness judges the holders of
// auto leases and reclaims only the dead.
func TestCheckLivenessReclaimsDeadOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, func(c *coordinator.Config) { c.LivenessEvery = 24 * time.Hour })
		held := e.mutate("alice", "a.txt")
		e.mutate("bob", "b.txt")
		e.live.set("alice", gate.Dead, deathEvidence)
		e.c.CheckLiveness(e.ctx)
		if got := e.held("alice", gate.KindAuto); len(got) != 0 {
			t.Fatalf("dead alice holds %q after CheckLiveness", got)
		}
		if got := e.held("bob", gate.KindAuto); !slices.Equal(got, []string{"b.txt"}) {
			t.Fatalf("live bob holds %q after CheckLiveness, want b.txt", got)
		}
		checkReclaimed(t, e, "alice", held.Leases)
	})
}

// TestLiveOwnersNeverReclaimed: alive, stopped and unknown owners keep
// their leases through contention, CheckLiveness and the liveness loop.
func TestLiveOwnersNeverReclaimed(t *testing.T) {
	for _, st := range []gate.LivenessStatus{gate.Alive, gate.Stopped, gate.Unknown} {
		t.Run(string(st), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := startEnv(t)
				e.mutate("alice", "a.txt")
				e.live.set("alice", st, "verdict "+string(st))
				if r := e.mutate("bob", "a.txt"); r.Outcome != leasegate.Contended {
					t.Fatalf("Mutate(bob) over a %s holder = %s, want contended", st, r.Outcome)
				}
				e.c.CheckLiveness(e.ctx)
				e.advanceTo(10 * time.Second)
				if got := e.held("alice", gate.KindAuto); !slices.Equal(got, []string{"a.txt"}) {
					t.Fatalf("%s alice holds %q, want a.txt", st, got)
				}
				if n := len(e.events(gate.EventReclaimed)) + len(e.events(gate.EventOwnerGone)); n != 0 {
					t.Fatalf("%d reclaim events for a %s owner, want 0", n, st)
				}
			})
		})
	}
}
