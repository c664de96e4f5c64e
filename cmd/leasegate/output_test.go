package main

import (
	"strings"
	"testing"

	"github.com/leasegate/leasegate/gate"
)

// TestEventLineNamesWhoActedOrIsTold: an event's line says who did it
// ("by alice"), but a notice says whom it is for ("to carol"): an
// eviction's notice read "by carol", as if carol had evicted herself.
func TestEventLineNamesWhoActedOrIsTold(t *testing.T) {
	tests := []struct {
		ev   gate.Event
		want string
	}{
		{ev: gate.Event{Seq: 7, At: statusNow, Type: gate.EventEvicted, LeaseID: "01JL", Actor: "olga", Reason: "on leave"}, want: "  by olga  — on leave"},
		{ev: gate.Event{Seq: 8, At: statusNow, Type: gate.EventNotice, LeaseID: "01JL", Actor: "carol", Reason: "evicted"}, want: "  to carol  — evicted"},
	}
	for _, tt := range tests {
		if got := eventLine(tt.ev); !strings.HasSuffix(got, tt.want) {
			t.Errorf("eventLine(%s) = %q, want it to end %q", tt.ev.Type, got, tt.want)
		}
	}
}
