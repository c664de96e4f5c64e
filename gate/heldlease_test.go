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
