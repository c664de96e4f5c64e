package coordinator_test

import (
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// blockedThenRestarted has carol blocked on alice's src/a.go, then
// restarts the coordinator, and returns the open blocker's id.
func blockedThenRestarted(t *testing.T, e *env) string {
	t.Helper()
	id := blockCarol(t, e)
	e.reopen()
	return id
}

// TestOpenBlockerHeldAcrossRestart: a blocker left open by a coordinator
// that stopped still holds its mutation for the operator in the next one:
// the halted worker's sidecar waits on it rather than being told there is
// no held mutation (which had it ask for its write again from the start),
// and the operator's answer reaches that wait.
func TestOpenBlockerHeldAcrossRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		id := blockedThenRestarted(t, e)
		type answer struct {
			r   leasegate.Result
			err error
		}
		waited := make(chan answer, 1)
		go func() {
			r, err := e.c.WaitBlocker(e.ctx, id)
			waited <- answer{r, err}
		}()
		synctest.Wait()
		select {
		case a := <-waited:
			t.Fatalf("WaitBlocker after the restart = %s, %v; want it to wait for the operator", a.r.Outcome, a.err)
		default:
		}
		res, err := e.c.Resolve(e.ctx, id, blocker.ActionDeny, "operator", "")
		if err != nil || res.Outcome != leasegate.Denied || strings.Contains(res.Message, "no held write") {
			t.Fatalf("Resolve(deny) after the restart = %s %q, %v; want the held write denied", res.Outcome, res.Message, err)
		}
		if a := <-waited; a.err != nil || a.r.Outcome != leasegate.Denied {
			t.Fatalf("WaitBlocker answered %s, %v; want denied", a.r.Outcome, a.err)
		}
	})
}

// TestOpenBlockerOfGoneRequesterClosedAfterRestart: a requester that died
// while its blocker was open across a restart has the blocker closed as
// aborted by liveness with the evidence, as without the restart; it had
// stayed open in the book with nobody behind it.
func TestOpenBlockerOfGoneRequesterClosedAfterRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		id := blockedThenRestarted(t, e)
		e.live.set("carol", gate.Dead, carolGone)
		e.advanceTo(retryAt + time.Second)
		mustAbortedByLiveness(t, e, id, carolGone)
	})
}

// TestContentionLeftWaitingWithdrawnAtRestart: a contention still waiting
// for its retry when the coordinator stopped is recorded as withdrawn by
// the next one, saying why: its write asks again under a new contention,
// and the ledger had left the first one open for good.
func TestContentionLeftWaitingWithdrawnAtRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		con := contendAsCarol(t, e)
		e.reopen()
		synctest.Wait()
		gone := e.events(gate.EventContentionGone)
		if len(gone) != 1 || gone[0].Actor != "carol" || gone[0].Path != "src/a.go" ||
			!strings.Contains(string(gone[0].Data), con.ID) || !strings.Contains(gone[0].Reason, "asks again") {
			t.Fatalf("contention.withdrawn events after the restart = %+v, want carol's %s on src/a.go saying the write asks again", gone, con.ID)
		}
		e.reopen()
		synctest.Wait()
		if again := e.events(gate.EventContentionGone); len(again) != 1 {
			t.Fatalf("a second restart recorded %d withdrawals, want still the one", len(again))
		}
	})
}

// TestRetriedBlockerWithItsLeaseGoneSaidAfterRestart: a blocker an
// operator retried before a restart, whose granted lease its requester no
// longer holds, finds no held write after the restart, and the answer
// says that it was resolved and its lease is gone, not only that nothing
// is held: the requester's sidecar tells its worker these words.
func TestRetriedBlockerWithItsLeaseGoneSaidAfterRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		id := blockCarol(t, e)
		if _, err := e.c.End(e.ctx, "alice", "worker exited"); err != nil {
			t.Fatalf("End(alice) = %v", err)
		}
		if res, err := e.c.Resolve(e.ctx, id, blocker.ActionRetry, "operator", ""); err != nil || res.Outcome != leasegate.Granted {
			t.Fatalf("Resolve(retry) = %s, %v; want granted", res.Outcome, err)
		}
		if _, err := e.c.End(e.ctx, "carol", "worker exited"); err != nil {
			t.Fatalf("End(carol) = %v", err)
		}
		e.reopen()
		r, err := e.c.WaitBlocker(e.ctx, id)
		want := "blocker " + id + " was resolved (retry by operator at "
		if !errors.Is(err, gate.ErrNotFound) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "the lease its retry granted carol holds no more") {
			t.Fatalf("WaitBlocker after the restart = %s, %v; want LEASE_NOT_FOUND saying %q… and that carol's lease is gone", r.Outcome, err, want)
		}
	})
}
