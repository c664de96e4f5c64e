package gate_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/gate"
)

// TestHeldLease: a lease named by a path is the owner's lease covering
// it; a path only others hold is the wrong owner (naming them), not a
// lease that does not exist.
func TestHeldLease(t *testing.T) {
	alice := gate.Lease{ID: "01JALICE", Owner: gate.Owner{Name: "alice"}}
	bob := gate.Lease{ID: "01JBOB", Owner: gate.Owner{Name: "bob"}}
	bob2 := gate.Lease{ID: "01JBOB2", Owner: gate.Owner{Name: "bob"}}
	tests := []struct {
		name     string
		covering []gate.Lease
		owner    string
		want     gate.LeaseID
		reason   gate.Reason
		says     string
	}{
		{name: "mine", covering: []gate.Lease{alice, bob}, owner: "bob", want: bob.ID},
		{name: "any one", covering: []gate.Lease{alice}, owner: "", want: alice.ID},
		{name: "nobody's", covering: nil, owner: "bob", reason: gate.ReasonNotFound, says: "no active lease of bob covers a.go"},
		{name: "another's", covering: []gate.Lease{alice}, owner: "bob", reason: gate.ReasonOwnerMismatch, says: "held by alice, lease 01JALICE"},
		{name: "others'", covering: []gate.Lease{alice, bob}, owner: "carol", reason: gate.ReasonOwnerMismatch, says: "held by alice (lease 01JALICE), bob (lease 01JBOB)"},
		{name: "several of mine", covering: []gate.Lease{bob, bob2}, owner: "bob", reason: gate.ReasonInputInvalid, says: "2 leases of bob cover a.go; give a lease id"},
	}
	for _, tt := range tests {
		l, err := gate.HeldLease(tt.covering, tt.owner, "a.go")
		var de *gate.DeniedError
		switch {
		case tt.reason == "" && (err != nil || l.ID != tt.want):
			t.Errorf("%s: HeldLease(%q) = %s, %v; want %s", tt.name, tt.owner, l.ID, err, tt.want)
		case tt.reason != "" && (!errors.As(err, &de) || de.Reason != tt.reason || !strings.Contains(err.Error(), tt.says)):
			t.Errorf("%s: HeldLease(%q) = %v; want %s saying %q", tt.name, tt.owner, err, tt.reason, tt.says)
		}
	}
}

// TestEndedLease: of a path's history, the owner's lease that an eviction
// or expiry ended last, unless the owner was granted another there since
// or it ended otherwise.
func TestEndedLease(t *testing.T) {
	granted := func(id gate.LeaseID, owner string) gate.Event {
		return gate.Event{Type: gate.EventGranted, Lease: &gate.Lease{ID: id, Owner: gate.Owner{Name: owner}}}
	}
	ended := func(typ gate.EventType, id gate.LeaseID) gate.Event { return gate.Event{Type: typ, LeaseID: id} }
	tests := []struct {
		name    string
		history []gate.Event
		want    gate.LeaseID
	}{
		{"evicted", []gate.Event{granted("L1", "bob"), ended(gate.EventEvicted, "L1")}, "L1"},
		{"expired", []gate.Event{granted("L1", "bob"), ended(gate.EventExpired, "L1")}, "L1"},
		{"the last of two", []gate.Event{granted("L1", "bob"), ended(gate.EventExpired, "L1"), granted("L2", "bob"), ended(gate.EventEvicted, "L2")}, "L2"},
		{"granted again since", []gate.Event{granted("L1", "bob"), ended(gate.EventEvicted, "L1"), granted("L2", "bob"), ended(gate.EventReleased, "L2")}, ""},
		{"released", []gate.Event{granted("L1", "bob"), ended(gate.EventReleased, "L1")}, ""},
		{"another's", []gate.Event{granted("L1", "alice"), ended(gate.EventEvicted, "L1")}, ""},
		{"nothing", nil, ""},
	}
	for _, tt := range tests {
		got, ok := gate.EndedLease(tt.history, "bob")
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("%s: EndedLease = %q, %v; want %q", tt.name, got, ok, tt.want)
		}
	}
}
