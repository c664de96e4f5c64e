package coordinator_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
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
		if err != nil || r.Outcome != leasegate.Denied || r.Message != `operator denied the write: EBUSY; the operator's note: "use b.go"` {
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
