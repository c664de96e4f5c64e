package coordinator_test

import (
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
)

// TestEndedLeasesAreBounded: past twice KeepEnded ended leases, the oldest
// are dropped from memory at once (not after a day); the newest stay, the
// active ones are untouched, and the ledger keeps every event.
func TestEndedLeasesAreBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, func(c *coordinator.Config) { c.KeepEnded = 3 })
		kept := e.checkout("bob", time.Hour, "kept")
		ids := releaseTen(e)
		checkRemembered(e, ids, 3)
		if l := e.lease(kept.ID); l.State != gate.StateActive {
			t.Fatalf("active lease is %s after pruning", l.State)
		}
		if got := len(e.events(gate.EventReleased)); got != len(ids) {
			t.Fatalf("ledger holds %d releases, want %d", got, len(ids))
		}
		_, err := e.c.Lease(e.ctx, leasegate.LeaseRequest{Op: gate.OpRelease, Owner: gate.Owner{Name: "alice"}, LeaseID: ids[0], Token: 1})
		if !errors.Is(err, gate.ErrNotFound) {
			t.Fatalf("releasing a forgotten lease again = %v, want %v", err, gate.ErrNotFound)
		}
	})
}

// TestEndedLeasesAreBoundedAfterReplay: a coordinator opened on a ledger
// where more leases ended than it keeps holds no more of them once the
// replay is done, before any commit.
func TestEndedLeasesAreBoundedAfterReplay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		kept := e.checkout("bob", time.Hour, "kept")
		ids := releaseTen(e)
		checkRemembered(e, ids, len(ids))
		e.edits = append(e.edits, func(c *coordinator.Config) { c.KeepEnded = 3 })
		e.reopen()
		checkRemembered(e, ids, 3)
		if l := e.lease(kept.ID); l.State != gate.StateActive {
			t.Fatalf("active lease is %s after the replay", l.State)
		}
	})
}

// releaseTen checks out ten files as alice and releases them, in order.
func releaseTen(e *env) []gate.LeaseID {
	e.t.Helper()
	var ids []gate.LeaseID
	for i := range 10 {
		l := e.checkout("alice", time.Hour, fmt.Sprintf("f%d", i))
		_, err := e.c.Lease(e.ctx, leasegate.LeaseRequest{Op: gate.OpRelease, Owner: gate.Owner{Name: "alice"}, LeaseID: l.ID, Token: l.FencingToken})
		if err != nil {
			e.t.Fatalf("release %s: %v", l.ID, err)
		}
		ids = append(ids, l.ID)
	}
	return ids
}

// checkRemembered fails unless the coordinator remembers between keep and
// 2×keep of the ended leases ids, the newest keep among them, each as
// released.
func checkRemembered(e *env, ids []gate.LeaseID, keep int) {
	e.t.Helper()
	remembered := 0
	for i, id := range ids {
		l, ok := leaseOf(e.c, id)
		switch {
		case ok && l.State != gate.StateReleased:
			e.t.Fatalf("lease %d is %s, want released", i, l.State)
		case ok:
			remembered++
		case i >= len(ids)-keep:
			e.t.Fatalf("lease %d of %d, among the %d newest ended, was forgotten", i, len(ids), keep)
		}
	}
	if remembered < keep || remembered > 2*keep {
		e.t.Fatalf("%d ended leases remembered, want %d to %d (KeepEnded %d)", remembered, keep, 2*keep, keep)
	}
}
