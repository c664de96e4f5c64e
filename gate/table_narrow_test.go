package gate_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// newDirWorld is a world where alice holds the subtree of a directory she
// created, own/**, and the lease of the file src/x.go.
func newDirWorld(t *testing.T) (*world, gate.LeaseID) {
	t.Helper()
	w := newWorld(t)
	e := grantEvent(w.nextID(), "alice", 1, sparse("own/**"), time.Time{})
	e.Lease.NewDir = true
	w.mustApply(e)
	w.mustApply(grantEvent(w.nextID(), "alice", 2, fileScope("src/x.go"), time.Time{}))
	return w, e.Lease.ID
}

func narrowEvent(id gate.LeaseID, paths ...string) gate.Event {
	return gate.Event{Type: gate.EventNarrowed, At: t0, LeaseID: id, Actor: "bob", Path: "own/b/**", Reason: "new directory shared",
		Lease: &gate.Lease{ID: id, Scope: sparse(paths...)}}
}

// TestNarrowKeepsWhatItNames checks that a narrowing leaves the lease
// covering exactly its new paths: what it gave up is free to another
// owner, what it kept is not, and the lease keeps its id, token and mark.
func TestNarrowKeepsWhatItNames(t *testing.T) {
	w, id := newDirWorld(t)
	w.mustApply(narrowEvent(id, "own", "own/a/**", "own/f.txt"))

	l := w.lease(id)
	if want := []string{"own", "own/a/**", "own/f.txt"}; !reflect.DeepEqual(l.Scope.Paths, want) || l.State != gate.StateActive || !l.NewDir || l.FencingToken != 1 {
		t.Fatalf("Lease(%s) = %+v, want active, new_dir, token 1, paths %v", id, l, want)
	}
	for _, tt := range []struct {
		path string
		held bool
	}{
		{"own", true}, {"own/a", true}, {"own/a/deep/x", true}, {"own/f.txt", true},
		{"own/b", false}, {"own/b/**", false}, {"own/g.txt", false},
	} {
		got := len(w.table.Overlapping(sparse(tt.path))) > 0
		if got != tt.held {
			t.Errorf("Overlapping(%q) held = %v, want %v", tt.path, got, tt.held)
		}
	}
	req := write("bob", "own/b/**")
	req.Scope.Type = gate.ScopeSparse
	if d := w.decide(req, t0); !d.Granted {
		t.Errorf("bob's own/b/** after the narrowing = %s %s, want granted", d.Reason, d.Message)
	}
	checkExclusive(t, w.table, gate.ExactCase)
}

// TestNarrowRefusals checks that the table refuses a narrowing that would
// widen a lease, of a lease not taken on a new directory, or without its
// paths, and that a refused one changes nothing.
func TestNarrowRefusals(t *testing.T) {
	tests := []struct {
		name string
		ev   func(dir, file gate.LeaseID) gate.Event
		want error
	}{
		{"a path outside the subtree", func(d, _ gate.LeaseID) gate.Event { return narrowEvent(d, "own", "other.txt") }, gate.ErrInvalidEvent},
		{"the parent's subtree", func(d, _ gate.LeaseID) gate.Event { return narrowEvent(d, "**") }, gate.ErrInvalidEvent},
		{"a glob other than a subtree", func(d, _ gate.LeaseID) gate.Event { return narrowEvent(d, "own/*.go") }, gate.ErrInvalidEvent},
		{"no paths", func(d, _ gate.LeaseID) gate.Event { return narrowEvent(d) }, gate.ErrInvalidEvent},
		{"no actor", func(d, _ gate.LeaseID) gate.Event { e := narrowEvent(d, "own"); e.Actor = ""; return e }, gate.ErrInvalidEvent},
		{"another lease's id in the event's lease", func(d, f gate.LeaseID) gate.Event { e := narrowEvent(d, "own"); e.Lease.ID = f; return e }, gate.ErrInvalidEvent},
		{"a lease not on a new directory", func(_, f gate.LeaseID) gate.Event { return narrowEvent(f, "src/x.go") }, gate.ErrInvalidEvent},
		{"an unknown lease", func(_, _ gate.LeaseID) gate.Event { return narrowEvent("01JNOSUCHLEASE000000000000", "own") }, gate.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, dir := newDirWorld(t)
			file := w.log[1].Lease.ID
			before := w.table.Active()
			if err := w.apply(tt.ev(dir, file)); !errors.Is(err, tt.want) {
				t.Fatalf("Apply(narrowing) = %v, want %v", err, tt.want)
			}
			if got := w.table.Active(); !reflect.DeepEqual(got, before) {
				t.Errorf("Active() after a refused narrowing = %+v, want %+v", got, before)
			}
		})
	}
}

// TestNarrowReplays checks that replaying a ledger holding a narrowing, and
// a second narrowing of the kept subtree, gives the same table.
func TestNarrowReplays(t *testing.T) {
	w, id := newDirWorld(t)
	w.mustApply(narrowEvent(id, "own", "own/a/**"))
	w.mustApply(narrowEvent(id, "own", "own/a", "own/a/x.go", "own/a/sub/**"))
	again := gate.NewTable()
	for _, e := range w.log {
		if err := again.Apply(e); err != nil {
			t.Fatalf("replay Apply(%s) = %v, want nil", e.Type, err)
		}
	}
	if got, want := again.Active(), w.table.Active(); !reflect.DeepEqual(got, want) {
		t.Errorf("replayed Active() = %+v, want %+v", got, want)
	}
	if got := again.Overlapping(sparse("own/a/new.go")); len(got) != 0 {
		t.Errorf("Overlapping(own/a/new.go) after the second narrowing = %v, want none", got)
	}
}
