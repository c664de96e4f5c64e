package coordinator_test

import (
	"testing"
	"testing/synctest"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store/bolt"
)

// TestRestartRecordsLedgerRecovered: a coordinator that stopped while its
// ledger was degraded left ledger.degraded last in the history; the next
// one, opening the ledger healthy, records ledger.recovered, once. One
// whose history ends healthy records nothing.
func TestRestartRecordsLedgerRecovered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		e.stop()
		appendHealth(t, e.ledgerPath, gate.Event{Type: gate.EventLedgerDegraded, Reason: "copy journal: no space left on device"})
		e.open()
		if got := healthEvents(t, e); len(got) != 2 || got[1] != gate.EventLedgerRecovered {
			t.Fatalf("health events after a restart on a healthy ledger = %v, want [degraded recovered]", got)
		}
		e.reopen()
		if got := healthEvents(t, e); len(got) != 2 {
			t.Fatalf("health events after a second restart = %v, want the same two", got)
		}
	})
}

// appendHealth appends ev, by the coordinator, to the stopped
// coordinator's ledger at path.
func appendHealth(t *testing.T, path string, ev gate.Event) {
	t.Helper()
	l, err := bolt.Open(path, bolt.Config{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	ev.Actor, ev.At = "coordinator", epoch
	if _, err := l.Append(t.Context(), ev); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// healthEvents are the types of the ledger's health events, in order.
func healthEvents(t *testing.T, e *env) []gate.EventType {
	t.Helper()
	synctest.Wait()
	var got []gate.EventType
	if err := e.c.Events(e.ctx, 0, false, func(ev gate.Event) error {
		if ev.Type == gate.EventLedgerDegraded || ev.Type == gate.EventLedgerRecovered {
			got = append(got, ev.Type)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}
