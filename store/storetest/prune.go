package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// pruneLedger grants five leases at t0 and ends four of them:
//
//	1 alice a.txt    released at t0+1h
//	2 bob   docs/**  check-out expiring t0+1h, expiry recorded at t0+5h
//	3 carol c.txt    evicted at t0+3h
//	4 dave  d.txt    still active
//	5 alice e.txt    released at t0+2h
func pruneLedger() []gate.Event {
	grant := func(tok uint64, who string, kind gate.Kind, sc gate.Scope, ttl time.Duration) gate.Event {
		l := &gate.Lease{ID: leaseID(tok), Owner: owner(who), Kind: kind, Scope: sc, State: gate.StateActive,
			FencingToken: tok, AcquiredAt: t0, LastHeartbeatAt: t0}
		if ttl > 0 {
			l.ExpiresAt = t0.Add(ttl)
		}
		return gate.Event{Type: gate.EventGranted, At: t0, Actor: who, Lease: l}
	}
	file := func(p string) gate.Scope { return gate.Scope{Type: gate.ScopeFile, Paths: []string{p}} }
	return []gate.Event{
		grant(1, "alice", gate.KindAuto, file("a.txt"), 0),
		grant(2, "bob", gate.KindCheckout, gate.Scope{Type: gate.ScopeSparse, Paths: []string{"docs/**"}}, time.Hour),
		grant(3, "carol", gate.KindAuto, file("c.txt"), 0),
		grant(4, "dave", gate.KindAuto, file("d.txt"), 0),
		grant(5, "alice", gate.KindAuto, file("e.txt"), 0),
		{Type: gate.EventReleased, At: t0.Add(time.Hour), Actor: "alice", LeaseID: leaseID(1), Reason: "worker exited"},
		{Type: gate.EventReleased, At: t0.Add(2 * time.Hour), Actor: "alice", LeaseID: leaseID(5), Reason: "committed"},
		{Type: gate.EventEvicted, At: t0.Add(3 * time.Hour), Actor: "root", LeaseID: leaseID(3), Reason: "stuck"},
		{Type: gate.EventExpired, At: t0.Add(5 * time.Hour), Actor: "coordinator", LeaseID: leaseID(2), Reason: "ttl elapsed"},
	}
}

func leaseID(tok uint64) gate.LeaseID {
	return gate.LeaseID("01JPRUNE" + string(rune('0'+tok)))
}

// testPrune replays a reopened ledger and prunes: only terminal leases
// whose TerminatedAt is before the cut go, and an expired lease ended at
// its expires_at, not when the expiry was recorded.
func testPrune(t *testing.T, o opener) {
	l, reopen := o.open(t)
	got := mustAppend(t, l, pruneLedger()...)
	lastToken := got[4].Lease.FencingToken // the fifth grant's, as the ledger fixed it
	mustClose(t, l)
	tb := gate.NewTable()
	if err := reopen().Replay(t.Context(), 0, tb.Apply); err != nil {
		t.Fatalf("Replay(0) into a new table = %v", err)
	}
	if l, _ := tb.Lease(leaseID(2)); !l.TerminatedAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("expired lease TerminatedAt = %v, want its ExpiresAt %v", l.TerminatedAt, t0.Add(time.Hour))
	}
	tests := []struct {
		before     time.Time
		wantPruned int
		wantLeft   []gate.LeaseID
	}{
		{before: t0.Add(2 * time.Hour), wantPruned: 2, wantLeft: []gate.LeaseID{leaseID(3), leaseID(4), leaseID(5)}},
		{before: t0.Add(24 * time.Hour), wantPruned: 2, wantLeft: []gate.LeaseID{leaseID(4)}},
	}
	for _, tc := range tests {
		if got := tb.Prune(tc.before); got != tc.wantPruned {
			t.Fatalf("Prune(%v) = %d, want %d", tc.before, got, tc.wantPruned)
		}
		var left []gate.LeaseID
		for _, l := range tb.All() {
			left = append(left, l.ID)
		}
		if !slices.Equal(left, tc.wantLeft) {
			t.Fatalf("after Prune(%v) leases = %v, want %v", tc.before, left, tc.wantLeft)
		}
	}
	if tb.LastToken() != lastToken || tb.ActiveCount() != 1 {
		t.Fatalf("after pruning LastToken() = %d, ActiveCount() = %d, want %d, 1", tb.LastToken(), tb.ActiveCount(), lastToken)
	}
}
