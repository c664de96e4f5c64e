package bolt

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/jsonenc/jsontest"
)

// TestSizeBound: the size MakeRoom counts without encoding is never less
// than what frame makes of the same events, with the largest Seq: for
// random events of every field (the codec's field-name tests fail first
// when a field is added, and this one when the bound forgets it), and for
// long strings that JSON escapes byte by byte.
func TestSizeBound(t *testing.T) {
	escaped := strings.Repeat("\x01", 1000)
	lease := gate.Lease{ID: "L", Owner: gate.Owner{Name: escaped}, Scope: gate.Scope{Type: gate.ScopeSparse, Paths: []string{escaped, escaped}}}
	sets := [][]gate.Event{
		{{Type: gate.EventReleased, Reason: escaped}},
		{{Type: gate.EventGranted, Lease: &lease}},
		{{Type: gate.EventNotice, Data: json.RawMessage(`"` + strings.Repeat("<", 1000) + `"`)}},
		{{Type: gate.EventNotice, By: &gate.Operator{Comm: escaped, Source: "SO_PEERCRED"}}},
	}
	g := eventGen{jsontest.New(13, 14)}
	for range 5000 {
		evs := make([]gate.Event, 1+g.R.IntN(4))
		for j := range evs {
			evs[j] = g.event()
		}
		sets = append(sets, evs)
	}
	for i, evs := range sets {
		buf, _, err := frame(nil, evs, 1<<62)
		if err != nil {
			continue // an event encoding/json refuses: its Append fails alone
		}
		if b := sizeBound(evs); b < int64(len(buf)) {
			t.Fatalf("set %d: sizeBound = %d, want at least the record's %d bytes\n%s", i, b, len(buf), buf)
		}
	}
}
