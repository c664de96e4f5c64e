package gate_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/leasegate/leasegate/gate"
)

// TestAlreadyHeld: only a scope overlap with the requester's own check-out
// of the same type and the same set of paths is an acquire already held.
func TestAlreadyHeld(t *testing.T) {
	docs := gate.Scope{Type: gate.ScopeSparse, Paths: []string{"docs/**", "src/*.go"}}
	held := gate.Lease{ID: "01J00000000000000000000000", Owner: gate.Owner{Name: "alice"}, Kind: gate.KindCheckout, Scope: docs}
	overlap := func(l gate.Lease) error {
		return &gate.DeniedError{Reason: gate.ReasonScopeOverlap, Message: "overlaps", Holder: &l}
	}
	auto := held
	auto.Kind = gate.KindAuto
	tests := []struct {
		name  string
		err   error
		owner string
		scope gate.Scope
		want  bool
	}{
		{name: "same paths", err: overlap(held), owner: "alice", scope: docs, want: true},
		{name: "same paths in another order, repeated", err: overlap(held), owner: "alice",
			scope: gate.Scope{Type: gate.ScopeSparse, Paths: []string{"src/*.go", "docs/**", "src/*.go"}}, want: true},
		{name: "wrapped", err: fmt.Errorf("acquire: %w", overlap(held)), owner: "alice", scope: docs, want: true},
		{name: "no error", err: nil, owner: "alice", scope: docs},
		{name: "another error", err: errors.New("socket closed"), owner: "alice", scope: docs},
		{name: "held by another owner", err: &gate.DeniedError{Reason: gate.ReasonHeldByOther, Holder: &held}, owner: "bob", scope: docs},
		{name: "overlap without a holder", err: &gate.DeniedError{Reason: gate.ReasonScopeOverlap}, owner: "alice", scope: docs},
		{name: "another owner's lease", err: overlap(held), owner: "bob", scope: docs},
		{name: "an auto lease", err: overlap(auto), owner: "alice", scope: docs},
		{name: "a subset", err: overlap(held), owner: "alice", scope: gate.Scope{Type: gate.ScopeSparse, Paths: []string{"docs/**"}}},
		{name: "a superset", err: overlap(held), owner: "alice",
			scope: gate.Scope{Type: gate.ScopeSparse, Paths: []string{"docs/**", "src/*.go", "lib/**"}}},
		{name: "the same paths as another scope type", err: overlap(held), owner: "alice", scope: gate.Scope{Type: gate.ScopeFile, Paths: docs.Paths}},
		{name: "the full scope", err: overlap(held), owner: "alice", scope: gate.Scope{Type: gate.ScopeFull}},
	}
	for _, tt := range tests {
		l, ok := gate.ExactCase.AlreadyHeld(tt.err, tt.owner, tt.scope, nil)
		if ok != tt.want || (ok && l.ID != held.ID) {
			t.Errorf("%s: AlreadyHeld(%v, %s, %v) = %s, %v, want %v", tt.name, tt.err, tt.owner, tt.scope.Paths, l.ID, ok, tt.want)
		}
	}
}

// TestAlreadyHeldWithPairs: a file acquired again is already held when the
// lease holds it with the pair the workspace's rules added (acquiring
// a.go twice was refused as an overlap with the lease of a.go and
// a_test.go); without the rule, or with only the pair asked, it is not.
func TestAlreadyHeldWithPairs(t *testing.T) {
	pairs, err := gate.CompilePairRules(gate.DefaultPairRules)
	if err != nil {
		t.Fatal(err)
	}
	held := gate.Lease{ID: "01J00000000000000000000000", Owner: gate.Owner{Name: "alice"}, Kind: gate.KindCheckout,
		Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{"src/a.go", "src/a_test.go"}}}
	err = &gate.DeniedError{Reason: gate.ReasonScopeOverlap, Message: "overlaps", Holder: &held}
	tests := []struct {
		paths []string
		pairs []gate.PairRule
		want  bool
	}{
		{paths: []string{"src/a.go"}, pairs: pairs, want: true},
		{paths: []string{"src/a_test.go"}, pairs: pairs, want: true},
		{paths: []string{"src/a.go", "src/a_test.go"}, pairs: pairs, want: true},
		{paths: []string{"src/a.go"}, pairs: nil, want: false},
		{paths: []string{"src/b.go"}, pairs: pairs, want: false},
	}
	for _, tt := range tests {
		scope := gate.Scope{Type: gate.ScopeFile, Paths: tt.paths}
		if _, ok := gate.ExactCase.AlreadyHeld(err, "alice", scope, tt.pairs); ok != tt.want {
			t.Errorf("AlreadyHeld(%v, pairs %d) = %v, want %v", tt.paths, len(tt.pairs), ok, tt.want)
		}
	}
}
