package coordinator_test

import (
	"testing"
	"testing/synctest"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// TestCheckoutOutlivesItsNamesProcess: a check-out taken under a name
// whose registered process is dead is not reclaimed, by the liveness
// check or by a contending writer; the dead process's auto lease is.
func TestCheckoutOutlivesItsNamesProcess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		e.mutate("alice", "auto.txt")
		co := e.checkout("alice", 0, "g.txt")
		e.live.set("alice", gate.Dead, "pid 1234 not found")
		if r := e.mutate("bob", "g.txt"); r.Outcome == leasegate.Granted {
			t.Fatalf("Mutate(bob, g.txt) = granted, want alice's check-out to hold")
		}
		e.c.CheckLiveness(e.ctx)
		if l, ok := leaseOf(e.c, co.ID); !ok || l.State != gate.StateActive {
			t.Errorf("alice's check-out = %+v, want active", l)
		}
		if r := e.mutate("bob", "auto.txt"); r.Outcome != leasegate.Granted {
			t.Errorf("Mutate(bob, auto.txt) = %s, want granted once the dead process's auto lease is reclaimed", r.Outcome)
		}
	})
}
