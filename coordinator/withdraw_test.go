package coordinator_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/childtest"
)

// TestWithdrawCancelsRetry: a withdrawn contention never retries, opens
// no blocker and takes no lease; the withdrawal is recorded with why.
func TestWithdrawCancelsRetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		con := contend(t, e)
		r, err := e.c.Withdraw(e.ctx, con.ID, "interrupted by signal 2 (interrupt)")
		if err != nil || r.Outcome != leasegate.Withdrawn {
			t.Fatalf("Withdraw = %s, %v; want withdrawn", r.Outcome, err)
		}
		e.advanceTo(retryAt + time.Minute)
		if n := len(e.events(gate.EventRetry)) + len(e.events(gate.EventBlockerOpened)); n != 0 {
			t.Fatalf("%d retry or blocker events after a withdrawal, want 0", n)
		}
		if got := e.held("bob", gate.KindAuto); len(got) != 0 {
			t.Fatalf("bob holds %q after withdrawing, want nothing", got)
		}
		gone := e.events(gate.EventContentionGone)
		if len(gone) != 1 || gone[0].Actor != "bob" || gone[0].Reason != "interrupted by signal 2 (interrupt)" {
			t.Fatalf("contention.withdrawn events %+v, want one for bob with the reason", gone)
		}
		if s := mustStatus(e.t, e.c); len(s.Contentions) != 0 {
			t.Fatalf("status still shows %+v", s.Contentions)
		}
	})
}

// TestResolveContentionBeforeRetry: an operator denies a waiting write by
// its contention id; it is answered at once and its retry never runs.
func TestResolveContentionBeforeRetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		con := contend(t, e)
		res, err := e.c.Resolve(e.ctx, con.ID, blocker.ActionDeny, "op", "use b.go")
		if err != nil || res.Outcome != leasegate.Denied || res.Contention == nil {
			t.Fatalf("Resolve(contention, deny) = %+v, %v; want denied", res, err)
		}
		r, err := e.c.WaitContention(e.ctx, con.ID)
		if err != nil || r.Outcome != leasegate.Denied || r.Message != `an operator denied the write; the operator's note: "use b.go"` {
			t.Fatalf("the waiter got %s %q, %v; want denied with the note", r.Outcome, r.Message, err)
		}
		e.advanceTo(retryAt + time.Minute)
		if n := len(e.events(gate.EventRetry)) + len(e.events(gate.EventBlockerOpened)); n != 0 {
			t.Fatalf("%d retry or blocker events after the operator's deny, want 0", n)
		}
		if rs := e.events(gate.EventContentionResolved); len(rs) != 1 || rs[0].Actor != "op" {
			t.Fatalf("contention.resolved events %+v, want one by op", rs)
		}
	})
}

// TestResolveContentionRetryStillHeldRecorded: an operator's retry of a
// waiting write whose file is still held leaves the write waiting for its
// retry and is recorded all the same, as contention.resolved with the
// result contended, the holder and the note.
func TestResolveContentionRetryStillHeldRecorded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		con := contend(t, e)
		res, err := e.c.Resolve(e.ctx, con.ID, blocker.ActionRetry, "op", "try now")
		if err != nil || res.Outcome != leasegate.Contended {
			t.Fatalf("Resolve(contention, retry) while held = %+v, %v; want contended", res, err)
		}
		rs := e.events(gate.EventContentionResolved)
		if len(rs) != 1 || rs[0].Actor != "op" || rs[0].LeaseID != con.Holder.ID || !strings.Contains(string(rs[0].Data), `"result":"contended"`) ||
			!strings.Contains(rs[0].Reason, "still held by alice") || !strings.Contains(rs[0].Reason, "try now") {
			t.Fatalf("contention.resolved events %+v, want the retry by op, still held by alice, with its note", rs)
		}
	})
}

// TestAskerGoneWithdrawsContention: a caller killed while no request
// waits on its contention is noticed by the exit of the process that asked:
// the contention is withdrawn, without the retry's clock moving, and its
// retry never runs. Two ways no request waits: the hook is killed between
// its Mutate and its WaitContention, or its wait's connection closed (the
// kernel closes a dying process's files) before its pidfd said it exited,
// so the wait ended seeing a live peer.
func TestAskerGoneWithdrawsContention(t *testing.T) {
	for _, tc := range []struct {
		name string
		wait bool // a wait attached and ended by its connection before the exit
	}{
		{name: "killed before it waits"},
		{name: "wait ended before the exit is seen", wait: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { checkAskerGone(t, tc.wait) })
		})
	}
}

func checkAskerGone(t *testing.T, wait bool) {
	e := startEnv(t)
	e.live.set("alice", gate.Alive, "pid 4242 running, started 2030-01-02T03:04:05Z")
	e.mutate("alice", "src/a.go")
	asker := childtest.Start(t)
	events := e.c.Subscribe(e.ctx, 64)
	ctx := leasegate.WithPeer(e.ctx, gate.Peer{PID: asker.Process.Pid, UID: uint32(os.Geteuid()), GID: uint32(os.Getegid())})
	r, err := e.c.Mutate(ctx, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: []string{"src/a.go"}})
	if err != nil || r.Outcome != leasegate.Contended {
		t.Fatalf("Mutate(bob, src/a.go) = %s, %v; want contended", r.Outcome, err)
	}
	if wait {
		closed, hangUp := context.WithCancel(ctx)
		hangUp()
		if w, err := e.c.WaitContention(closed, r.Contention.ID); err != nil || w.Outcome != leasegate.Contended {
			t.Fatalf("WaitContention(closed connection) = %s, %v; want contended", w.Outcome, err)
		}
	}
	_ = asker.Process.Kill()
	_ = asker.Wait()
	// The bubble's time moves only while no goroutine waits on I/O, so
	// the timeout fires at once if nothing watches the asker's exit; the
	// mock clock never moves toward the retry.
	timeout := time.After(10 * time.Second)
	for withdrawn := false; !withdrawn; {
		select {
		case ev := <-events:
			withdrawn = ev.Type == gate.EventContentionGone && ev.Actor == "bob"
		case <-timeout:
			t.Fatal("the contention of a killed caller that no request waits on was not withdrawn within 10s")
		}
	}
	if gone := e.events(gate.EventContentionGone); len(gone) != 1 || !strings.Contains(gone[0].Reason, fmt.Sprintf("pid %d", asker.Process.Pid)) {
		t.Fatalf("contention.withdrawn events %+v, want one naming pid %d", gone, asker.Process.Pid)
	}
	e.advanceTo(retryAt + time.Minute)
	if n := len(e.events(gate.EventRetry)) + len(e.events(gate.EventBlockerOpened)); n != 0 {
		t.Fatalf("%d retry or blocker events after the asker ended, want 0", n)
	}
}
