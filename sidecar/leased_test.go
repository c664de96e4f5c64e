package sidecar

import (
	"context"
	"testing"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/servicetest"
)

func TestLeasedMirror(t *testing.T) {
	m := newLeased()
	lease := func(id string, paths ...string) gate.Lease {
		return gate.Lease{ID: gate.LeaseID(id), State: gate.StateActive, Scope: gate.Scope{Type: gate.ScopeFile, Paths: paths}}
	}
	m.reset([]gate.Lease{lease("a", "f.txt"), lease("b", "build/**")})
	m.apply(gate.Event{Type: gate.EventGranted, Lease: &gate.Lease{ID: "c", State: gate.StateActive, Scope: gate.Scope{Type: gate.ScopeSparse, Paths: []string{"gen/*.go"}}}})
	tests := []struct {
		rel  string
		tree bool
		want bool
	}{
		{rel: "f.txt", want: true},
		{rel: "g.txt"},
		{rel: "build/x/y.o", want: true},
		{rel: "build", want: true},
		{rel: "gen/a.go", want: true},
		{rel: "gen/a.c"},
		{rel: "gen", tree: true, want: true},
		{rel: ".", tree: true, want: true},
		{rel: "src", tree: true},
	}
	for _, tt := range tests {
		if got := m.covers(tt.rel, tt.tree); got != tt.want {
			t.Errorf("covers(%q, tree %v) = %v, want %v", tt.rel, tt.tree, got, tt.want)
		}
	}
	m.apply(gate.Event{Type: gate.EventReleased, LeaseID: "a"})
	if m.covers("f.txt", false) {
		t.Error("f.txt still covered after its lease was released")
	}
}

// tableScript is a coordinator whose status shows table at seq last.
type tableScript struct {
	*servicetest.Script
	table []gate.Lease
	last  uint64
}

func (c *tableScript) Status(context.Context) (leasegate.Status, error) {
	return leasegate.Status{Leases: c.table, LastSeq: c.last}, nil
}

// TestFollowAgainTakesTheTable: before a cut event stream is followed
// again, the mirror becomes the coordinator's table, and the stream goes
// on from the ledger's last event when the ledger went back below the
// last one seen (it went on from the last one seen, skipping every event
// numbered up to it, with the mirror of the table before).
func TestFollowAgainTakesTheTable(t *testing.T) {
	lease := func(id, path string) gate.Lease {
		return gate.Lease{ID: gate.LeaseID(id), State: gate.StateActive, Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{path}}}
	}
	for _, tc := range []struct {
		name      string
		last      uint64
		wantAfter uint64
	}{
		{name: "went back", last: 3, wantAfter: 3},
		{name: "went on", last: 20, wantAfter: 11},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := fakeSidecar(t, servicetest.New())
			s.leased.reset([]gate.Lease{lease("gone", "gone.txt")})
			s.cfg.Client = &tableScript{Script: servicetest.New(), table: []gate.Lease{lease("back", "back.txt")}, last: tc.last}
			if got := s.followAgain(context.Background(), 11); got != tc.wantAfter {
				t.Errorf("followAgain(11) with the ledger at seq %d = %d, want %d", tc.last, got, tc.wantAfter)
			}
			if s.leased.covers("gone.txt", false) || !s.leased.covers("back.txt", false) {
				t.Errorf("mirror covers gone.txt %v, back.txt %v; want the table's lease alone", s.leased.covers("gone.txt", false), s.leased.covers("back.txt", false))
			}
		})
	}
}
