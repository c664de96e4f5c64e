package gate_test

import (
	"testing"

	"github.com/leasegate/leasegate/gate"
)

// TestEndsLease pins the lease-ending event types: the five that leave a
// lease in an end state, and none of the others.
func TestEndsLease(t *testing.T) {
	tests := []struct {
		typ  gate.EventType
		want bool
	}{
		{gate.EventReleased, true},
		{gate.EventCompleted, true},
		{gate.EventExpired, true},
		{gate.EventEvicted, true},
		{gate.EventReclaimed, true},
		{gate.EventGranted, false},
		{gate.EventRenewed, false},
		{gate.EventReminded, false},
		{gate.EventOwnerGone, false},
		{gate.EventOwnerStopped, false},
		{gate.EventNotice, false},
		{gate.EventContentionWoken, false},
	}
	for _, tt := range tests {
		if got := tt.typ.EndsLease(); got != tt.want {
			t.Errorf("EventType(%q).EndsLease() = %v, want %v", tt.typ, got, tt.want)
		}
	}
}
