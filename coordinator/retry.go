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
)

// retry is the one retry of a contention, run by the scheduler exactly
// requester's retry window after the first denial. Granted, the mutation proceeds; still
// held, a blocker report is opened and the mutation is held.
func (c *Coordinator) retry(id string) {
	c.mu.Lock()
	con := c.contentions[id]
	if con == nil || con.view.Outcome != leasegate.Contended {
		c.mu.Unlock()
		return
	}
	delete(c.byKey, c.mutationKey(con.req.Owner, con.req.Paths))
	now := c.clock.Now()
	o := c.owners[con.req.Owner]
	if o == nil || o.gone {
		c.decided(con, leasegate.Result{Outcome: leasegate.Aborted, Reason: gate.ReasonNotFound, Message: "requester " + con.req.Owner + " is gone"})
		c.mu.Unlock()
		return
	}
	d, done, err := c.decideAndCommit(o.Owner, con.req, now)
	if err == nil && !d.Granted && d.Reason == gate.ReasonHeldByOther {
		var bd <-chan error
		bd, err = c.openBlocker(con, d, now)
		done = both(done, bd)
	}
	c.mu.Unlock()
	if err == nil {
		err = <-done
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case raced(err) && con.races < raceAttempts:
		c.retryRaced(con)
	case errors.Is(err, leasegate.ErrNoSession):
		c.retryOnSession(con)
	case err != nil:
		c.log.Error("retry failed", "contention", id, "error", err)
		c.decided(con, leasegate.Result{Outcome: leasegate.Denied, Reason: gate.ReasonInputInvalid, Message: "retry failed: " + err.Error()})
	case d.Granted:
		c.log.Info("retry granted", "contention", id, "requester", con.req.Owner)
		c.decided(con, leasegate.Result{Outcome: leasegate.Granted, Reason: gate.ReasonOK, Leases: c.shownTokens(grantedLeases(d))})
	case d.Reason != gate.ReasonHeldByOther:
		c.decided(con, leasegate.Result{Outcome: leasegate.Denied, Reason: d.Reason, Message: d.Message})
	default:
		c.decided(con, c.held[con.view.BlockerID].result)
	}
}

// decided records a contention's outcome and wakes its waiters. Call with
// c.mu held.
func (c *Coordinator) decided(con *contention, r leasegate.Result) {
	con.decidedAt = c.clock.Now()
	con.view.Outcome = r.Outcome
	con.result = r
	v := con.view
	con.result.Contention = &v
	select {
	case <-con.done:
	default:
		close(con.done)
	}
}

// blockedNotice is the requester's notice of its blocker, saying what its
// held git lock does to everyone else's git meanwhile.
func blockedNotice(rep blocker.Report) string {
	msg := fmt.Sprintf("blocked on %s held by %s: blocker %s", gate.ShownPath(rep.Path), rep.Holder.Owner.Name, rep.ID)
	if note := rep.GitLockNote(); note != "" {
		msg += "; " + note
	}
	return msg
}

// holderBlockedNotice is the holder's notice of a blocker on its lease h;
// when the blocked write holds git's lock, releasing also lets every
// other git in the repository run again.
func holderBlockedNotice(requester string, h gate.Lease, rep blocker.Report) string {
	msg := fmt.Sprintf("%s is blocked on your lease %s of %s: commit or release it", requester, h.ID, gate.ShownPath(heldPath(rep)))
	if rep.HoldsGitLock != "" {
		msg += fmt.Sprintf(" (its git holds %s meanwhile, so every other git in the repository fails until then)", rep.HoldsGitLock)
	}
	return msg
}

// openBlocker writes the blocker report of a contention whose retry found
// the path still held. Call with c.mu held.
func (c *Coordinator) openBlocker(con *contention, d gate.Decision, now time.Time) (<-chan error, error) {
	h := *d.Holder
	c.shownToken(&h)
	rep := blocker.New(blocker.Input{
		ID: c.newID(now), Path: c.conflictFile(con.req.Paths, h), Paths: con.req.Paths, Op: con.req.Op,
		Requester: c.owners[con.req.Owner].Owner, Holder: h, HolderLiveness: c.judge(h.Owner.Name, now),
		FirstDeniedAt: con.view.FirstDeniedAt, RetryAt: con.view.RetryAt, RetriedAt: now,
		RetryInterval: con.view.RetryAfter.After, RetryFrom: con.view.RetryAfter.From,
		HolderIdle: c.windowsOf(h.Owner.Name).Idle, RetryResult: d.Reason, SameFileAs: sameFileAs(h, con.req.Paths, con.req.Files),
		HoldsGitLock: con.req.HoldsGitLock,
	})
	opened, err := blocker.OpenedEvent(rep, now)
	if err != nil {
		return nil, err
	}
	retryData, _ := json.Marshal(map[string]any{"contention_id": con.view.ID, "result": d.Reason, "blocker_id": rep.ID})
	evs := []gate.Event{
		{Type: gate.EventRetry, At: now, Actor: con.req.Owner, Path: rep.Path, LeaseID: h.ID, Reason: string(d.Reason), Data: retryData},
		opened,
		notice(con.req.Owner, leasegate.NoticeBlocked, now, blockedNotice(rep)),
		leaseNotice(h, leasegate.NoticeBlocked, now, holderBlockedNotice(con.req.Owner, h, rep)),
	}
	done, err := c.commit(evs)
	if err != nil {
		return nil, err
	}
	con.view.BlockerID = rep.ID
	con.holdBy(d)
	c.held[rep.ID] = &hold{con: con, done: make(chan struct{}),
		result: leasegate.Result{Outcome: leasegate.Blocked, Reason: d.Reason, Holder: &h, Blocker: &rep,
			Message: fmt.Sprintf("%s is still held by %s after the retry; blocker %s is open", gate.ShownPath(rep.Path), h.Owner.Where(), rep.ID)}}
	c.writeReport(rep)
	c.log.Warn("blocker opened", "blocker", rep.ID, "file", rep.Path, "requester", con.req.Owner, "holder", h.Owner.Name)
	return done, nil
}

// WaitContention waits until a contention's retry is decided or ctx ends,
// and returns where it stands (Contended if ctx ended first).
func (c *Coordinator) WaitContention(ctx context.Context, id string) (leasegate.Result, error) {
	c.mu.Lock()
	con := c.contentions[id]
	if con != nil {
		con.waiters++
	}
	c.mu.Unlock()
	if con == nil {
		return leasegate.Result{}, &gate.DeniedError{Reason: gate.ReasonNotFound, Message: "no contention " + id}
	}
	peer := watchPeer(ctx, c.cfg.Descriptors)
	defer peer.Close()
	select {
	case <-con.done:
	case <-ctx.Done():
	case <-peer.Gone():
	}
	c.mu.Lock()
	con.waiters--
	if peer.exited() && con.view.Outcome == leasegate.Contended && con.waiters == 0 {
		done := c.withdrawAbandoned(con, peer)
		c.mu.Unlock()
		return con.result, <-done
	}
	defer c.mu.Unlock()
	if con.view.Outcome == leasegate.Contended {
		return con.contended(), nil
	}
	return con.result, nil
}

// WaitBlocker waits until an operator resolves a blocker or ctx ends, and
// returns where the held mutation stands (Blocked if ctx ended first).
func (c *Coordinator) WaitBlocker(ctx context.Context, id string) (leasegate.Result, error) {
	c.mu.Lock()
	h := c.held[id]
	if h == nil {
		r, ok := c.answeredWhileAway(id)
		c.mu.Unlock()
		if ok {
			return r, nil
		}
		return leasegate.Result{}, &gate.DeniedError{Reason: gate.ReasonNotFound, Message: c.noHoldWhy(id)}
	}
	c.mu.Unlock()
	select {
	case <-h.done:
	case <-ctx.Done():
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return h.result, nil
}

// releaseWaiters answers every waiter when the coordinator stops, so no
// request hangs; clients then find the coordinator gone and retry.
func (c *Coordinator) releaseWaiters() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, con := range c.contentions {
		select {
		case <-con.done:
		default:
			close(con.done)
		}
	}
	for _, h := range c.held {
		select {
		case <-h.done:
		default:
			close(h.done)
		}
	}
}
