package gate_test

import (
	"testing"

	"github.com/leasegate/leasegate/gate"
)

// TestActiveListFrozen: a lease list answers the table's active leases as
// Active did when it was taken, whatever the table goes through next
// (releases, renewals, prunes and grants in the slots freed).
func TestActiveListFrozen(t *testing.T) {
	rng := testRand(t)
	w := newWorld(t)
	now := churn(w, rng, 400, t0)
	list := w.table.ActiveList()
	want := jsonOf(t, w.table.Active())
	if got := jsonOf(t, list.Leases()); got != want {
		t.Fatalf("ActiveList() = %s\nwant Active() = %s", got, want)
	}
	churn(w, rng, 400, now)
	if got := jsonOf(t, list.Leases()); got != want {
		t.Fatalf("ActiveList() after the table changed = %s\nwant it as it was: %s", got, want)
	}
	if got := (gate.LeaseList{}).Len(); got != 0 {
		t.Errorf("LeaseList{}.Len() = %d, want 0", got)
	}
}
