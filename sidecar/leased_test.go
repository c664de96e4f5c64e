package sidecar

import (
	"testing"

	"github.com/leasegate/leasegate/gate"
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
