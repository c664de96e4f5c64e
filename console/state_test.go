package console_test

import (
	"testing"

	"github.com/leasegate/leasegate/gate"
)

// TestStateCoalesced: a crowd of workers makes tens of non-lease events a
// second, and each "state" is a status call to the coordinator and the
// whole status to the page. A burst of them sends a state at its start
// and one after its last event, not one per event.
func TestStateCoalesced(t *testing.T) {
	svc := newFake()
	next := mustEvents(t, svc)
	if name, _ := next(); name != "snapshot" {
		t.Fatalf("first event %s, want the snapshot", name)
	}
	const burst = 50
	go func() {
		for i := range burst {
			svc.feed <- gate.Event{Seq: uint64(10 + i), Type: gate.EventOwnerStopped, Actor: "alice"}
		}
	}()
	states, ledger := 0, 0
	for {
		name, _ := next()
		if name == "ledger" {
			ledger++
		}
		if name == "state" {
			states++
			if ledger == burst {
				break // the state after the burst's last event
			}
		}
	}
	if states > 3 {
		t.Errorf("%d states for a burst of %d non-lease events, want at most 3", states, burst)
	}
}
