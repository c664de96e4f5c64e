package sidecar

import (
	"testing"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/servicetest"
)

// narrowedEvent is the ledger's narrowing of l to paths, by bob's write.
func narrowedEvent(l gate.Lease, paths ...string) gate.Event {
	l.Scope = gate.Scope{Type: gate.ScopeTypeOf(paths), Paths: paths}
	return gate.Event{Type: gate.EventNarrowed, LeaseID: l.ID, Lease: &l, Actor: "bob", Path: "own/b/**", Reason: "new directory shared"}
}

// TestNarrowingForgetsTheCache: the narrowing of the worker's new
// directory's lease drops what the sidecar remembers, so its next write
// beneath the directory is asked again; another owner's narrowing keeps
// it. The mirror of every owner's leases follows the narrowed scope.
func TestNarrowingForgetsTheCache(t *testing.T) {
	s, _ := fakeSidecar(t, servicetest.New())
	mine := servicetest.LeaseOn("alice", "own/**")
	mine.NewDir = true
	theirs := servicetest.LeaseOn("carol", "lib/**")
	theirs.NewDir = true
	s.observe(gate.Event{Type: gate.EventGranted, Lease: &mine})
	s.observe(gate.Event{Type: gate.EventGranted, Lease: &theirs})
	s.held.add("alice", []gate.Lease{mine})

	s.observe(narrowedEvent(theirs, "lib", "lib/x.go"))
	if !s.held.covers([]string{"own/b/g"}) {
		t.Fatal("the cache was dropped by another owner's narrowing")
	}
	if s.leased.covers("lib/new.go", false) || !s.leased.covers("lib/x.go", false) {
		t.Error("the mirror does not follow carol's narrowing to lib, lib/x.go")
	}
	s.observe(narrowedEvent(mine, "own", "own/a/**"))
	if s.held.covers([]string{"own/b/g"}) || s.held.covers([]string{"own/a/f"}) {
		t.Error("the cache still answers for own/ after alice's lease was narrowed")
	}
	if s.leased.covers("own/b/g", false) || !s.leased.covers("own/a/f", false) || !s.leased.covers("own", false) {
		t.Error("the mirror does not follow alice's narrowing to own, own/a/**")
	}
}
