package coordinator_test

import (
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// withCheckout gives alice an auto lease on a.txt and a check-out lease on
// docs/**.
func withCheckout(t *testing.T, e *env) {
	t.Helper()
	e.mutate("alice", "a.txt")
	e.checkout("alice", 0, "docs/**")
}

// TestStopIdleReleasesAutoLeases: 30 s after Stop with no mutation the
// owner's auto leases are released, not before; check-outs stay.
func TestStopIdleReleasesAutoLeases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		withCheckout(t, e)
		at, err := e.c.Stop(e.ctx, "alice", "turn ended")
		if err != nil || !at.Equal(e.at(30*time.Second)) {
			t.Fatalf("Stop(alice) = %s, %v; want the release at %s", at, err, e.at(30*time.Second))
		}
		e.advanceTo(30*time.Second - time.Millisecond)
		if got := e.held("alice", gate.KindAuto); !slices.Equal(got, []string{"a.txt"}) {
			t.Fatalf("alice holds %q 29.999 s after Stop, want a.txt", got)
		}
		e.advanceTo(30 * time.Second)
		if got := e.held("alice", gate.KindAuto); len(got) != 0 {
			t.Fatalf("alice holds %q 30 s after Stop, want nothing", got)
		}
		if got := e.held("alice", gate.KindCheckout); !slices.Equal(got, []string{"docs/**"}) {
			t.Fatalf("alice's check-outs after stop-idle: %q, want docs/**", got)
		}
		rel := e.events(gate.EventReleased)
		if len(rel) != 1 || rel[0].Reason != "stop-idle" || rel[0].Actor != "alice" || !rel[0].At.Equal(e.at(30*time.Second)) {
			t.Fatalf("release events %+v, want one stop-idle release by alice at 30 s", rel)
		}
		if r := e.mutate("bob", "a.txt"); r.Outcome != leasegate.Granted {
			t.Fatalf("Mutate(bob, a.txt) after alice's stop-idle = %s, want granted", r.Outcome)
		}
	})
}

// TestActivityCancelsStopIdle: a mutation or reported activity at 29 s
// cancels the pending release; only a new Stop opens another window.
func TestActivityCancelsStopIdle(t *testing.T) {
	tests := []struct {
		name string
		act  func(e *env)
	}{
		{name: "mutation", act: func(e *env) { e.mutate("alice", "b.txt") }},
		{name: "mutation of a held file", act: func(e *env) { e.mutate("alice", "a.txt") }},
		{name: "activity", act: func(e *env) { e.c.Activity(e.ctx, "alice") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := startEnv(t)
				e.mutate("alice", "a.txt")
				if _, err := e.c.Stop(e.ctx, "alice", "turn ended"); err != nil {
					t.Fatalf("Stop(alice) = %v", err)
				}
				e.advanceTo(29 * time.Second)
				tt.act(e)
				e.advanceTo(time.Hour)
				if got := e.held("alice", gate.KindAuto); !slices.Contains(got, "a.txt") {
					t.Fatalf("alice holds %q an hour after %s cancelled stop-idle, want a.txt", got, tt.name)
				}
				if n := len(e.events(gate.EventReleased)); n != 0 {
					t.Fatalf("%d releases after a cancelled stop-idle, want 0", n)
				}
			})
		})
	}
}

// TestEndReleasesAutoLeasesAndMarksGone: End releases the worker's auto
// leases at once, keeps its check-outs, records owner.gone and refuses
// later mutations by that owner.
func TestEndReleasesAutoLeasesAndMarksGone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		withCheckout(t, e)
		if _, err := e.c.Stop(e.ctx, "alice", "turn ended"); err != nil {
			t.Fatalf("Stop(alice) = %v", err)
		}
		n, err := e.c.End(e.ctx, "alice", "worker exited")
		if err != nil || n != 1 {
			t.Fatalf("End(alice) = %d, %v; want 1 lease released", n, err)
		}
		if got := e.held("alice", gate.KindAuto); len(got) != 0 {
			t.Fatalf("alice holds %q after End", got)
		}
		if got := e.held("alice", gate.KindCheckout); !slices.Equal(got, []string{"docs/**"}) {
			t.Fatalf("alice's check-outs after End: %q, want docs/**", got)
		}
		if gone := e.events(gate.EventOwnerGone); len(gone) != 1 || gone[0].Actor != "alice" || gone[0].Reason != "worker exited" {
			t.Fatalf("owner.gone events %+v, want alice's with the reason", gone)
		}
		if _, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"c.txt"}}); !errors.Is(err, gate.ErrNotFound) {
			t.Fatalf("Mutate by an ended owner = %v, want ErrNotFound", err)
		}
		e.advanceTo(time.Hour)
		if n := len(e.events(gate.EventReleased)); n != 1 {
			t.Fatalf("%d releases, want 1: the stop-idle window must close with End", n)
		}
		if _, err := e.c.End(e.ctx, "mallory", "never registered"); !errors.Is(err, gate.ErrNotFound) {
			t.Fatalf("End(mallory) = %v, want ErrNotFound", err)
		}
	})
}
