package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
)

// withdrawnData is the payload of a contention.withdrawn event.
type withdrawnData struct {
	Contention string   `json:"contention_id"`
	Paths      []string `json:"paths"`
	Holder     string   `json:"holder"`
}

// Withdraw ends a waiting contention at its requester's word: the write
// it waited for will not be made (the waiting syscall was interrupted, a
// hook is ending). Only the requester's own processes (or an operator) may.
// The retry is cancelled, no lease is taken, and the withdrawal is
// recorded with why. A contention decided meanwhile is left as decided;
// the answer says where it stands.
func (c *Coordinator) Withdraw(ctx context.Context, id, why string) (leasegate.Result, error) {
	if err := gate.ValidID(id); err != nil {
		return leasegate.Result{}, &gate.DeniedError{Reason: gate.ReasonInputInvalid, Message: "contention id: " + err.Error()}
	}
	c.mu.Lock()
	con := c.contentions[id]
	c.mu.Unlock()
	if con == nil {
		return leasegate.Result{}, &gate.DeniedError{Reason: gate.ReasonNotFound, Message: "no contention " + id}
	}
	if err := c.callerOf(ctx).actAs(con.req.Owner); err != nil { // con.req never changes
		return leasegate.Result{}, err
	}
	c.mu.Lock()
	if con.view.Outcome == leasegate.Blocked {
		return c.withdrawBlocked(ctx, con, why)
	}
	if con.view.Outcome != leasegate.Contended {
		r := con.result
		c.mu.Unlock()
		return r, nil
	}
	done := c.withdraw(con, why, c.clock.Now())
	r := con.result
	c.mu.Unlock()
	return r, durable(ctx, done)
}

// withdraw ends a waiting contention without a decision. Call with c.mu
// held; wait on the returned channel after unlocking.
func (c *Coordinator) withdraw(con *contention, why string, now time.Time) <-chan error {
	c.sched.CancelRetry(con.view.ID)
	c.sched.CancelRetry(wakeKeyPrefix + con.view.ID)
	delete(c.byKey, c.mutationKey(con.req.Owner, con.req.Paths))
	data, _ := json.Marshal(withdrawnData{Contention: con.view.ID, Paths: con.req.Paths, Holder: con.view.Holder.Owner.Name})
	done, err := c.commit([]gate.Event{{Type: gate.EventContentionGone, At: now, Actor: con.req.Owner,
		Path: c.conflictFile(con.req.Paths, con.view.Holder), LeaseID: con.view.Holder.ID, Reason: why, Data: data}})
	if err != nil {
		done = failed(err)
	}
	c.log.Info("contention withdrawn", "contention", con.view.ID, "requester", con.req.Owner, "why", why)
	c.decided(con, leasegate.Result{Outcome: leasegate.Withdrawn, Reason: gate.ReasonHeldByOther, Message: "the write was withdrawn: " + why})
	return done
}

// peerWatch is the process on the other end of a request's connection,
// held by a pidfd while the request's contention waits.
type peerWatch struct {
	pid  int
	w    *liveness.Watched
	gone chan struct{} // closed when the process exits
}

// watchPeer holds the process on the other end of ctx's connection by a
// pidfd: gone closes when that process exits, so a caller killed outright
// (SIGKILL) is known at once, whatever its connection does. A peer whose
// process has already exited (killed while its request was answered) is
// gone at once. No peer (an in-process caller), a pid the coordinator
// cannot see: nil, which never ends; no pidfd for it (none on this
// kernel, or d's share of them held): Gone never closes either.
func watchPeer(ctx context.Context, d *liveness.Descriptors) *peerWatch {
	p, ok := leasegate.PeerOf(ctx)
	if !ok || p.PID <= 0 {
		return nil
	}
	pw := &peerWatch{pid: p.PID, gone: make(chan struct{})}
	start, err := liveness.ProcessStart(p.PID)
	if err == nil {
		pw.w, err = d.Watch(liveness.ProcID{PID: p.PID, StartTime: start}, func() { close(pw.gone) })
	}
	switch {
	case errors.Is(err, liveness.ErrProcessNotFound):
		close(pw.gone)
	case err != nil:
		return nil
	}
	return pw
}

// Gone is closed when the watched process exits; nil (never) without one.
func (pw *peerWatch) Gone() <-chan struct{} {
	if pw == nil {
		return nil
	}
	return pw.gone
}

// exited reports whether the watched process has exited.
func (pw *peerWatch) exited() bool {
	if pw == nil {
		return false
	}
	select {
	case <-pw.gone:
		return true
	default:
		return pw.w.Exited()
	}
}

// Close ends the watch; safe on nil.
func (pw *peerWatch) Close() {
	if pw != nil {
		pw.w.Close()
	}
}

// watchAsker withdraws a contention when the process that asked for it
// (the peer of the Mutate request that answered Contended) exits while no
// request waits on it. A hook is a short-lived process: killed between
// that answer and its first WaitContention, no wait is attached whose
// peer could be watched; killed while it waits, the kernel closes its
// connection before its pidfd says it exited, so the wait can end seeing
// a live peer. Without this the contention would wait for its retry and
// open a blocker for a write nobody makes. The watch ends when the
// contention is decided.
func (c *Coordinator) watchAsker(ctx context.Context, con *contention) {
	pw := watchPeer(ctx, c.cfg.Descriptors)
	if pw == nil {
		return
	}
	go func() {
		defer pw.Close()
		select {
		case <-con.done:
			return
		case <-pw.Gone():
		}
		c.mu.Lock()
		done := c.withdrawAbandoned(con, pw)
		c.mu.Unlock()
		if err := <-done; err != nil {
			c.log.Warn("withdrawing a contention whose asker ended failed", "contention", con.view.ID, "error", err)
		}
	}()
}

// withdrawAbandoned withdraws con when the process pw has exited, con
// still waits and no request waits on it: nobody is left to make its
// write. Call with c.mu held; wait on the returned channel after unlocking.
func (c *Coordinator) withdrawAbandoned(con *contention, pw *peerWatch) <-chan error {
	if !pw.exited() || con.view.Outcome != leasegate.Contended || con.waiters > 0 {
		return closedNil()
	}
	return c.withdraw(con, fmt.Sprintf("its waiter (pid %d) ended before the write was decided", pw.pid), c.clock.Now())
}

// withdrawBlocked closes the open blocker of a held write whose requester
// stopped waiting (the write was interrupted while its worker was halted):
// nothing is left for an operator to resolve, and the requester is no
// longer halted. Call with c.mu held; it unlocks it.
func (c *Coordinator) withdrawBlocked(ctx context.Context, con *contention, why string) (leasegate.Result, error) {
	id := con.view.BlockerID
	h := c.held[id]
	rep, ok := c.book.Get(id)
	if h == nil || !h.resolvedAt.IsZero() || !ok || rep.Status != blocker.StatusOpen {
		r := con.result
		c.mu.Unlock()
		return r, nil
	}
	now := c.clock.Now()
	ev, err := blocker.ResolvedEvent(id, blocker.ActionWithdraw, con.req.Owner, now, why)
	if err != nil {
		c.mu.Unlock()
		return leasegate.Result{}, err
	}
	ev.Path, ev.LeaseID, ev.Reason = rep.Path, rep.Holder.LeaseID, resolutionLine(id, blocker.ActionWithdraw, why)
	done, err := c.commit([]gate.Event{ev})
	c.mu.Unlock()
	if err == nil {
		err = durable(ctx, done)
	}
	if err != nil {
		return leasegate.Result{}, err
	}
	res := leasegate.Result{Outcome: leasegate.Withdrawn, Reason: gate.ReasonHeldByOther, Message: "the held write was withdrawn: " + why}
	c.finishHold(h, res)
	c.log.Info("blocker withdrawn", "blocker", id, "requester", con.req.Owner, "why", why)
	c.mu.Lock()
	rep, _ = c.book.Get(id)
	c.mu.Unlock()
	c.writeReport(rep)
	return res, nil
}
