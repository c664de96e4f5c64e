package coordinator

import (
	"context"
	"fmt"

	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// Resolve carries out an operator's instruction on an open blocker (or,
// given a contention's id, on a write waiting for its retry: see
// resolveContention):
// retry re-decides (granted: the held mutation proceeds; still held: the
// blocker stays open), deny fails the held mutation with EBUSY and lets the
// worker go on, abort ends the worker. On a shared ledger it is carried
// out again after a lost race, like Mutate.
func (c *Coordinator) Resolve(ctx context.Context, id string, a blocker.Action, by, note string) (leasegate.ResolveResult, error) {
	return again(ctx, c, func() (leasegate.ResolveResult, error) { return c.resolve(ctx, id, a, by, note) })
}

// resolve is Resolve's one attempt.
func (c *Coordinator) resolve(ctx context.Context, id string, a blocker.Action, by, note string) (leasegate.ResolveResult, error) {
	if err := gate.ValidID(id); err != nil {
		return leasegate.ResolveResult{}, &gate.DeniedError{Reason: gate.ReasonInputInvalid, Message: "blocker id: " + err.Error()}
	}
	cl := c.callerOf(ctx)
	if err := cl.admin("resolve"); err != nil {
		return leasegate.ResolveResult{}, err
	}
	c.mu.Lock()
	rep, ok := c.book.Get(id)
	if con := c.contentions[id]; !ok && con != nil && con.view.Outcome == leasegate.Contended {
		return c.resolveContention(ctx, con, a, by, note, cl)
	}
	if !ok {
		c.mu.Unlock()
		return leasegate.ResolveResult{}, &gate.DeniedError{Reason: gate.ReasonNotFound, Message: "no blocker or waiting contention " + id}
	}
	if rep.Status != blocker.StatusOpen {
		c.mu.Unlock()
		return leasegate.ResolveResult{}, fmt.Errorf("blocker %s is %s: %w", id, rep.Status, blocker.ErrNotOpen)
	}
	now := c.clock.Now()
	h, away := c.held[id], !c.holdsBlocker(rep)
	o := c.owners[rep.Requester.Name]
	wrapped := o == nil || o.treeEnds // a sidecar's worker; else an agent's hook session
	var res leasegate.Result
	evs := []gate.Event{}
	pre := closedNil()
	switch a {
	case blocker.ActionRetry:
		r, grants, rd, err := c.retryHeld(rep, now)
		if err == nil && r.Outcome == leasegate.Blocked {
			return c.retriedStillHeld(ctx, rep, r, rd, by, note, cl, now)
		}
		if err != nil {
			c.mu.Unlock()
			return leasegate.ResolveResult{}, err
		}
		res, evs, pre = r, grants, rd
	case blocker.ActionDeny:
		res = leasegate.Result{Outcome: leasegate.Denied, Reason: gate.ReasonHeldByOther, Message: "an operator denied the write"}
	case blocker.ActionAbort:
		res = leasegate.Result{Outcome: leasegate.Aborted, Reason: gate.ReasonHeldByOther, Message: "operator aborted the worker"}
	default:
		c.mu.Unlock()
		return leasegate.ResolveResult{}, fmt.Errorf("action %q: %w", a, blocker.ErrUnknownAction)
	}
	ev, err := blocker.ResolvedEvent(id, a, by, now, note)
	if err != nil {
		c.mu.Unlock()
		return leasegate.ResolveResult{}, err
	}
	ev.Path, ev.LeaseID, ev.Reason = rep.Path, rep.Holder.LeaseID, resolutionLine(id, a, note)
	res.Message = withNote(res.Message, note)
	evs = append(evs, ev)
	stamp(evs, cl.record())
	done, err := c.commit(evs)
	done = both(pre, done)
	c.mu.Unlock()
	if err == nil {
		err = durable(ctx, done)
	}
	if err != nil {
		return leasegate.ResolveResult{}, err
	}
	res.Leases = c.answerTokens(res.Leases)
	c.finishHold(h, res)
	c.mu.Lock()
	rep, _ = c.book.Get(id)
	c.mu.Unlock()
	c.refreshReport(id)
	msg := resolveMessage(a, res, h != nil, wrapped)
	if away {
		msg = resolvedAwayMessage(a, res, rep)
	}
	return leasegate.ResolveResult{Blocker: rep, Outcome: res.Outcome, Message: msg}, nil
}

// retriedStillHeld records an operator's retry that found the file still
// held (blocker.retried, stamped like a resolution) and leaves the blocker
// open and its write held: the act is in the audit trail with its time and
// operator though nothing changed. Call with c.mu held; it unlocks it.
func (c *Coordinator) retriedStillHeld(ctx context.Context, rep blocker.Report, r leasegate.Result, pre <-chan error, by, note string, cl caller, now time.Time) (leasegate.ResolveResult, error) {
	ev, err := blocker.RetriedEvent(rep.ID, by, now, note)
	if err != nil {
		c.mu.Unlock()
		return leasegate.ResolveResult{}, err
	}
	lease, holder := rep.Holder.LeaseID, "another owner"
	if r.Holder != nil {
		lease, holder = r.Holder.ID, r.Holder.Owner.Name
	}
	ev.Path, ev.LeaseID, ev.Reason = rep.Path, lease, withNote(fmt.Sprintf("retry of blocker %s: still held by %s", rep.ID, holder), note)
	evs := []gate.Event{ev}
	stamp(evs, cl.record())
	done, err := c.commit(evs)
	c.mu.Unlock()
	if err == nil {
		err = durable(ctx, both(pre, done))
	}
	if err != nil {
		return leasegate.ResolveResult{}, err
	}
	return leasegate.ResolveResult{Blocker: rep, Outcome: leasegate.Blocked, Message: r.Message}, nil
}

// retryHeld re-decides a blocked mutation. Call with c.mu held.
func (c *Coordinator) retryHeld(rep blocker.Report, now time.Time) (leasegate.Result, []gate.Event, <-chan error, error) {
	o, ok := c.requesterOf(rep)
	if !ok {
		return leasegate.Result{Outcome: leasegate.Aborted, Message: "requester " + rep.Requester.Name + " is gone"}, nil, closedNil(), nil
	}
	req := gate.Request{Op: gate.OpAcquire, Owner: o, Kind: gate.KindAuto, Scope: gate.Scope{Type: gate.ScopeTypeOf(rep.Paths), Paths: rep.Paths}}
	d, pre, err := c.decideReclaiming(req, now)
	if err != nil {
		return leasegate.Result{}, nil, nil, err
	}
	if !d.Granted {
		holder := "another owner"
		if d.Holder != nil {
			holder = d.Holder.Owner.Name
		}
		return leasegate.Result{Outcome: leasegate.Blocked, Reason: d.Reason, Holder: d.Holder,
			Message: fmt.Sprintf("%s is still held by %s; blocker %s stays open and %s stays halted (`leasegate blockers %s` says how to resolve it)",
				gate.ShownPath(rep.Path), holder, rep.ID, rep.Requester.Name, rep.ID)}, nil, pre, nil
	}
	c.fillIDs(d.Events, now)
	return leasegate.Result{Outcome: leasegate.Granted, Reason: gate.ReasonOK, Leases: grantedLeases(d), Message: "an operator retried blocker " + rep.ID + ": granted"}, d.Events, pre, nil
}

func (c *Coordinator) finishHold(h *hold, r leasegate.Result) {
	if h == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	h.result = r
	h.resolvedAt = c.clock.Now()
	select {
	case <-h.done:
	default:
		close(h.done)
	}
}

// resolveMessage says what a resolution did. With no held write waiting
// for it, it names the operator's act, not the outcome a gone requester's
// retry is given (aborted), and why nothing was waiting. A denial reaches
// a wrapped worker (a sidecar's) as EBUSY, an agent's hook session as
// its tool call refused.
func resolveMessage(a blocker.Action, r leasegate.Result, held, wrapped bool) string {
	if !held {
		why := "its worker is gone or the coordinator restarted"
		if a == blocker.ActionRetry && r.Outcome == leasegate.Aborted && r.Message != "" {
			why = r.Message
		}
		return fmt.Sprintf("%s recorded and the blocker closed; no held write was waiting for it (%s)", a, why)
	}
	switch r.Outcome {
	case leasegate.Granted:
		return "retry granted: the held write proceeds"
	case leasegate.Denied:
		if !wrapped {
			// An agent's hook answers its tool call; no syscall fails.
			return "write denied: the agent's tool call is refused and the session resumes"
		}
		return "write denied with EBUSY; the worker resumes"
	case leasegate.Aborted:
		return "worker aborted"
	}
	return r.Message
}

// resolutionLine is a resolution as the history shows it.
func resolutionLine(id string, a blocker.Action, note string) string {
	return withNote(fmt.Sprintf("%s of blocker %s", a, id), note)
}

// withNote adds an operator's note to a message for the worker.
func withNote(msg, note string) string {
	if note == "" {
		return msg
	}
	return fmt.Sprintf("%s; the operator's note: %q", msg, note)
}
