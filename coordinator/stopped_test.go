package coordinator_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
)

const stopEvidence = "pid 4242 stopped (state T)"

// TestObservedStopReleases: an owner whose process the liveness check finds
// stopped (it cannot report the stop itself) gets a stop-idle window from
// that check, recorded with the evidence, and loses its auto leases when
// the window ends.
func TestObservedStopReleases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		e.mutate("alice", "a.txt")
		e.live.set("alice", gate.Stopped, stopEvidence)
		seen := coordinator.DefaultLivenessEvery
		e.advanceTo(seen)
		stops := e.events(gate.EventOwnerStopped)
		if len(stops) != 1 || stops[0].Actor != "alice" || !strings.Contains(stops[0].Reason, "liveness check") ||
			!strings.Contains(stops[0].Reason, stopEvidence) {
			t.Fatalf("owner.stopped events %+v, want one for alice naming the liveness check and its evidence", stops)
		}
		var v gate.Liveness
		if err := json.Unmarshal(stops[0].Data, &v); err != nil || v.Status != gate.Stopped || !slices.Equal(v.Evidence, []string{stopEvidence}) {
			t.Fatalf("owner.stopped carries %s (%v), want the stopped verdict", stops[0].Data, err)
		}
		e.advanceTo(seen + gate.DefaultIdleAfter - time.Millisecond)
		if got := e.held("alice", gate.KindAuto); !slices.Equal(got, []string{"a.txt"}) {
			t.Fatalf("alice holds %q before the window ended, want a.txt", got)
		}
		e.advanceTo(seen + gate.DefaultIdleAfter)
		if got := e.held("alice", gate.KindAuto); len(got) != 0 {
			t.Fatalf("stopped alice holds %q after the window, want nothing", got)
		}
		if n := len(e.events(gate.EventOwnerStopped)); n != 1 {
			t.Fatalf("%d owner.stopped events, want 1: a window stays open while the owner stays stopped", n)
		}
	})
}

// TestObservedStopEndsWhenOwnerRuns: the window the liveness check opened
// closes when the owner's process runs again.
func TestObservedStopEndsWhenOwnerRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		e.mutate("alice", "a.txt")
		e.live.set("alice", gate.Stopped, stopEvidence)
		e.advanceTo(coordinator.DefaultLivenessEvery)
		e.live.set("alice", gate.Alive, "pid 4242 running")
		e.advanceTo(10 * time.Second)
		e.advanceTo(time.Minute)
		if got := e.held("alice", gate.KindAuto); !slices.Equal(got, []string{"a.txt"}) {
			t.Fatalf("resumed alice holds %q, want a.txt", got)
		}
	})
}

// TestReportedStopOutlivesRunningOwner: a stop the owner reported (its
// sidecar runs while its worker is stopped) is not ended by the owner's
// process being alive, only by activity.
func TestReportedStopOutlivesRunningOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		e.mutate("alice", "a.txt")
		if _, err := e.c.Stop(e.ctx, "alice", "process tree stopped"); err != nil {
			t.Fatal(err)
		}
		e.advanceTo(gate.DefaultIdleAfter)
		if got := e.held("alice", gate.KindAuto); len(got) != 0 {
			t.Fatalf("alice holds %q after a reported stop and a running sidecar, want nothing", got)
		}
	})
}
