package coordinator_test

import (
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

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
		var ids []gate.LeaseID
		for i := range 10 {
			l := e.checkout("alice", time.Hour, fmt.Sprintf("f%d", i))
			_, err := e.c.Lease(e.ctx, coordinator.LeaseRequest{Op: gate.OpRelease, Owner: gate.Owner{Name: "alice"}, LeaseID: l.ID, Token: l.FencingToken})
			if err != nil {
				t.Fatalf("release %s: %v", l.ID, err)
			}
			ids = append(ids, l.ID)
		}
		remembered := 0
		for i, id := range ids {
			l, ok := e.c.Get(id)
			switch {
			case ok && l.State != gate.StateReleased:
				t.Fatalf("lease %d is %s, want released", i, l.State)
			case ok:
				remembered++
			case i >= len(ids)-3:
				t.Fatalf("lease %d of %d, among the 3 newest ended, was forgotten", i, len(ids))
			}
		}
		if remembered < 3 || remembered > 6 {
			t.Fatalf("%d ended leases remembered, want 3 to 6 (KeepEnded 3)", remembered)
		}
		if l := e.lease(kept.ID); l.State != gate.StateActive {
			t.Fatalf("active lease is %s after pruning", l.State)
		}
		if got := len(e.events(gate.EventReleased)); got != len(ids) {
			t.Fatalf("ledger holds %d releases, want %d", got, len(ids))
		}
		_, err := e.c.Lease(e.ctx, coordinator.LeaseRequest{Op: gate.OpRelease, Owner: gate.Owner{Name: "alice"}, LeaseID: ids[0], Token: 1})
		if !errors.Is(err, gate.ErrNotFound) {
			t.Fatalf("releasing a forgotten lease again = %v, want %v", err, gate.ErrNotFound)
		}
	})
}
