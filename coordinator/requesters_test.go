package coordinator_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

const carolGone = "pid 4343 not found on host h"

// contendAsCarol registers carol (a process-backed owner, pid 4343) and
// has her contend for alice's src/a.go.
func contendAsCarol(t *testing.T, e *env) leasegate.ContentionView {
	t.Helper()
	if err := e.c.Register(e.ctx, leasegate.Registration{Owner: gate.Owner{Name: "carol", Host: "h", PID: 4343}}); err != nil {
		t.Fatalf("Register(carol) = %v", err)
	}
	e.mutate("alice", "src/a.go")
	e.advanceTo(deniedAt)
	r := e.mutate("carol", "src/a.go")
	if r.Outcome != leasegate.Contended || r.Contention == nil {
		t.Fatalf("Mutate(carol, src/a.go) = %s, want contended", r.Outcome)
	}
	return *r.Contention
}

// blockCarol has carol blocked on alice's src/a.go after her one retry
// and returns the open blocker's id.
func blockCarol(t *testing.T, e *env) string {
	t.Helper()
	con := contendAsCarol(t, e)
	e.advanceTo(retryAt)
	r, err := e.c.WaitContention(e.ctx, con.ID)
	if err != nil || r.Outcome != leasegate.Blocked || r.Blocker == nil {
		t.Fatalf("WaitContention = %s, %v; want blocked", r.Outcome, err)
	}
	return r.Blocker.ID
}

// TestDeadRequesterClosesItsBlocker: a blocked requester that dies is
// recorded gone with the evidence, its blocker is resolved as aborted by
// liveness with that evidence, and once the live owners end nothing keeps the
// coordinator busy.
func TestDeadRequesterClosesItsBlocker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		id := blockCarol(t, e)
		e.live.set("carol", gate.Dead, carolGone)
		e.advanceTo(retryAt + time.Second)
		gone := e.events(gate.EventOwnerGone)
		if len(gone) != 1 || gone[0].Actor != "carol" || !strings.Contains(gone[0].Reason, carolGone) {
			t.Fatalf("owner.gone events %+v, want carol's with %q", gone, carolGone)
		}
		mustAbortedByLiveness(t, e, id, carolGone)
		if w, _ := e.c.WaitBlocker(cancelled(), id); w.Outcome != leasegate.Aborted {
			t.Fatalf("WaitBlocker after carol died = %s, want aborted", w.Outcome)
		}
		for _, name := range []string{"alice", "bob"} {
			if _, err := e.c.End(e.ctx, name, "exited"); err != nil {
				t.Fatalf("End(%s) = %v", name, err)
			}
		}
		e.advanceTo(retryAt + 2*time.Second)
		if e.c.Busy() {
			t.Fatalf("Busy() with the holder ended and the requester dead, want idle: %+v", mustStatus(e.t, e.c))
		}
	})
}

// mustAbortedByLiveness fails t unless blocker id is resolved as aborted
// by liveness, with evidence in its note.
func mustAbortedByLiveness(t *testing.T, e *env, id, evidence string) {
	t.Helper()
	rep, ok := blockerOf(e.c, id)
	if !ok || rep.Status == blocker.StatusOpen || rep.Resolution == nil ||
		rep.Resolution.Action != blocker.ActionAbort || rep.Resolution.By != "liveness" || !strings.Contains(rep.Resolution.Note, evidence) {
		t.Fatalf("blocker %s after its requester died: %s %+v, want aborted by liveness with %q", id, rep.Status, rep.Resolution, evidence)
	}
}

// TestDeadRequesterEndsItsContention: a requester that dies while waiting
// for its retry has its contention decided at once, not at the retry.
func TestDeadRequesterEndsItsContention(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		con := contendAsCarol(t, e)
		e.live.set("carol", gate.Dead, carolGone)
		e.advanceTo(deniedAt + time.Second)
		r, err := e.c.WaitContention(cancelled(), con.ID)
		if err != nil || r.Outcome != leasegate.Aborted || !strings.Contains(r.Message, carolGone) {
			t.Fatalf("WaitContention after carol died = %s %q, %v; want aborted with %q", r.Outcome, r.Message, err, carolGone)
		}
		e.advanceTo(retryAt + time.Second)
		if n := len(e.events(gate.EventBlockerOpened)); n != 0 {
			t.Fatalf("%d blockers opened for a dead requester, want 0", n)
		}
	})
}

// TestHeartbeatOwnerNotMarkedGone: an owner with no process to check is
// left alone even when its verdict is dead: only process evidence marks
// an owner without leases gone.
func TestHeartbeatOwnerNotMarkedGone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		e.live.set("bob", gate.Dead, "no heartbeat for 10s")
		e.advanceTo(time.Second)
		if n := len(e.events(gate.EventOwnerGone)); n != 0 {
			t.Fatalf("%d owner.gone events for bob, registered without a pid; want 0", n)
		}
	})
}
