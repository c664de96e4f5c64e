package gate_test

import (
	"testing"

	"github.com/leasegate/leasegate/gate"
)

func TestSetTokenRenumbersAGrant(t *testing.T) {
	tb := gate.NewTable()
	now := t0
	d := gate.Decide(gate.Request{Op: gate.OpAcquire, Owner: gate.Owner{Name: "alice"}, Kind: gate.KindAuto,
		Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{"a.go"}}}, tb, now)
	if !d.Granted {
		t.Fatalf("Decide = %+v, want a grant", d)
	}
	d.Events[0].Lease.ID = "01JTOKEN00000000000000000A"
	for _, e := range d.Events {
		if err := tb.Apply(e); err != nil {
			t.Fatalf("Apply(%s) = %v", e.Type, err)
		}
	}
	const fixed = 7<<20 | 3
	if !tb.SetToken("01JTOKEN00000000000000000A", fixed) {
		t.Fatal("SetToken of a held lease = false, want true")
	}
	if l, _ := tb.Lease("01JTOKEN00000000000000000A"); l.FencingToken != fixed {
		t.Errorf("Lease().FencingToken = %d, want %d", l.FencingToken, fixed)
	}
	if got := tb.LastToken(); got != fixed {
		t.Errorf("LastToken() = %d, want %d", got, fixed)
	}
	if got, _ := tb.Clone().Lease("01JTOKEN00000000000000000A"); got.FencingToken != fixed {
		t.Errorf("a clone's token = %d, want %d", got.FencingToken, fixed)
	}
	next := gate.Decide(gate.Request{Op: gate.OpAcquire, Owner: gate.Owner{Name: "bob"}, Kind: gate.KindAuto,
		Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{"b.go"}}}, tb, now)
	if tok := next.Events[0].Lease.FencingToken; tok != fixed+1 {
		t.Errorf("the next grant's token = %d, want %d", tok, fixed+1)
	}
	if tb.SetToken("01JTOKEN00000000000000000B", 1) {
		t.Error("SetToken of an unknown lease = true, want false")
	}
}
