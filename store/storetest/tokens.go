package storetest

import (
	"fmt"
	"testing"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
)

// testGrantTokens queues grants from several calls at once, so that some
// share a commit, and checks the tokens the ledger gives back: increasing
// in Seq order, the ones queued unless the ledger numbers grants itself,
// the caller's events left as they were, and the same on every replay.
func testGrantTokens(t *testing.T, o opener) {
	l, reopen := o.open(t)
	var calls [][]gate.Event
	var waits []func() ([]gate.Event, error)
	tok := uint64(0)
	for c := range 12 {
		var evs []gate.Event
		for range c%3 + 1 {
			tok++
			evs = append(evs, tokenGrant(tok))
		}
		evs = append(evs, notes("bob", 1)...)
		calls = append(calls, evs)
		waits = append(waits, l.EnqueueAck(nil, evs...))
	}
	var got []gate.Event
	for i, wait := range waits {
		out, err := wait()
		if err != nil {
			t.Fatalf("call %d: wait() = %v", i, err)
		}
		got = append(got, out...)
	}
	numbers := false
	if n, ok := l.(store.GrantNumberer); ok {
		numbers = n.NumbersGrants()
	}
	checkTokens(t, got, numbers)
	want := uint64(0)
	for _, evs := range calls {
		for _, e := range evs {
			if e.Type != gate.EventGranted {
				continue
			}
			if want++; e.Lease.FencingToken != want {
				t.Fatalf("the caller's grant %s has token %d after the commit, want %d as queued: the ledger changed the caller's lease", e.Lease.ID, e.Lease.FencingToken, want)
			}
		}
	}
	if g, w := jsonOf(replayAll(t, l, 0)), jsonOf(got); g != w {
		t.Fatalf("Replay =\n%s\nwant what the commits gave\n%s", g, w)
	}
	mustClose(t, l)
	if g, w := jsonOf(replayAll(t, reopen(), 0)), jsonOf(got); g != w {
		t.Fatalf("Replay after reopen =\n%s\nwant\n%s", g, w)
	}
}

// checkTokens checks the grants among evs, in Seq order: tokens increase,
// and are 1, 2, ... as queued unless the ledger numbers them.
func checkTokens(t *testing.T, evs []gate.Event, numbers bool) {
	t.Helper()
	var last uint64
	n := uint64(0)
	for _, e := range evs {
		if e.Type != gate.EventGranted {
			continue
		}
		n++
		tok := e.Lease.FencingToken
		switch {
		case tok <= last:
			t.Fatalf("grant seq %d has token %d after %d: tokens must increase in ledger order", e.Seq, tok, last)
		case !numbers && tok != n:
			t.Fatalf("grant seq %d has token %d, want %d as queued (the ledger does not number grants)", e.Seq, tok, n)
		}
		last = tok
	}
}

// tokenGrant is an auto lease on its own file with fencing token tok.
func tokenGrant(tok uint64) gate.Event {
	l := &gate.Lease{ID: gate.LeaseID(fmt.Sprintf("01JTOKENS%017d", tok)), Owner: owner("alice"), Kind: gate.KindAuto,
		Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{fmt.Sprintf("f%d.go", tok)}}, State: gate.StateActive,
		FencingToken: tok, AcquiredAt: t0, LastHeartbeatAt: t0}
	return gate.Event{Type: gate.EventGranted, At: t0, Actor: "alice", Lease: l}
}
