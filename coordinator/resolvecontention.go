package coordinator

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// resolvedContention is the payload of the event that records an
// operator's act on a waiting contention.
type resolvedContention struct {
	Contention string            `json:"contention_id"`
	Action     blocker.Action    `json:"action"`
	By         string            `json:"by"`
	Note       string            `json:"note,omitempty"`
	Result     leasegate.Outcome `json:"result"`
}

// resolveContention carries out an operator's instruction on a write that
// waits for its retry, before the retry: retry decides now (granted: the
// write proceeds; still held: it keeps waiting for its retry), deny fails
// it with EBUSY, abort ends the worker. Each is recorded with the note and
// the operator. Call with c.mu held; it unlocks it.
func (c *Coordinator) resolveContention(ctx context.Context, con *contention, a blocker.Action, by, note string, cl caller) (leasegate.ResolveResult, error) {
	now := c.clock.Now()
	view := con.view
	var res leasegate.Result
	var evs []gate.Event
	pre := closedNil()
	switch a {
	case blocker.ActionRetry:
		o := c.owners[con.req.Owner]
		if o == nil || o.gone {
			c.mu.Unlock()
			return leasegate.ResolveResult{}, &gate.DeniedError{Reason: gate.ReasonNotFound, Message: "requester " + con.req.Owner + " is gone"}
		}
		req := gate.Request{Op: gate.OpAcquire, Owner: o.Owner, Kind: gate.KindAuto, Scope: gate.Scope{Type: gate.ScopeTypeOf(con.req.Paths), Paths: con.req.Paths, Files: con.req.Files}}
		d, rd, err := c.decideReclaiming(req, now)
		if err != nil || !d.Granted {
			if err == nil && d.Holder != nil {
				con.holdBy(d)
			}
			msg := fmt.Sprintf("%s is still held by %s; the write keeps waiting for its retry at %s", gate.ShownPath(c.conflictFile(con.req.Paths, view.Holder)),
				con.view.Holder.Owner.Where(), view.RetryAt.UTC().Format(time.RFC3339))
			if err == nil {
				var done <-chan error
				done, err = c.commit(c.retriedWaiting(con, by, note, cl, now))
				rd = both(rd, done)
			}
			c.mu.Unlock()
			if err == nil {
				err = durable(ctx, rd)
			}
			return leasegate.ResolveResult{Contention: &view, Outcome: leasegate.Contended, Message: msg}, err
		}
		c.fillIDs(d.Events, now)
		res, evs, pre = leasegate.Result{Outcome: leasegate.Granted, Reason: gate.ReasonOK, Leases: grantedLeases(d), Message: "an operator retried the write: granted"}, d.Events, rd
	case blocker.ActionDeny:
		res = leasegate.Result{Outcome: leasegate.Denied, Reason: gate.ReasonHeldByOther, Message: "an operator denied the write"}
	case blocker.ActionAbort:
		res = leasegate.Result{Outcome: leasegate.Aborted, Reason: gate.ReasonHeldByOther, Message: "operator aborted the worker"}
	default:
		c.mu.Unlock()
		return leasegate.ResolveResult{}, fmt.Errorf("action %q: %w", a, blocker.ErrUnknownAction)
	}
	res.Message = withNote(res.Message, note)
	data, _ := json.Marshal(resolvedContention{Contention: view.ID, Action: a, By: by, Note: note, Result: res.Outcome})
	evs = append(evs, gate.Event{Type: gate.EventContentionResolved, At: now, Actor: by, Path: c.conflictFile(con.req.Paths, view.Holder),
		LeaseID: view.Holder.ID, Reason: withNote(fmt.Sprintf("%s of contention %s (requester %s)", a, view.ID, con.req.Owner), note), Data: data})
	stamp(evs, cl.record())
	done, err := c.commit(evs)
	if err != nil {
		c.mu.Unlock()
		return leasegate.ResolveResult{}, err
	}
	c.sched.CancelRetry(view.ID)
	delete(c.byKey, c.mutationKey(con.req.Owner, con.req.Paths))
	con.view.Outcome = res.Outcome // no retry or wake decides it again
	c.mu.Unlock()
	if err := durable(ctx, both(pre, done)); err != nil {
		if raced(err) {
			c.mu.Lock()
			c.waitAgain(con)
			c.mu.Unlock()
		}
		return leasegate.ResolveResult{}, err
	}
	c.mu.Lock()
	res.Leases = c.shownTokens(res.Leases)
	c.decided(con, res)
	view = con.view
	c.mu.Unlock()
	return leasegate.ResolveResult{Contention: &view, Outcome: res.Outcome, Message: res.Message}, nil
}

// waitAgain puts back a waiting write whose resolution the shared ledger
// refused: it waits for its retry at the time it was given, so that the
// operator's act, carried out again once caught up, finds it waiting
// rather than left undecided with no retry. Call with c.mu held.
func (c *Coordinator) waitAgain(con *contention) {
	con.view.Outcome = leasegate.Contended
	if key := c.mutationKey(con.req.Owner, con.req.Paths); c.byKey[key] == nil {
		c.byKey[key] = con
	}
	id, now := con.view.ID, c.clock.Now()
	c.sched.ScheduleRetry(id, now, max(0, con.view.RetryAt.Sub(now)), func(time.Time) { c.retry(id) })
}

// retriedWaiting is the record of an operator's retry that found a
// waiting write's file still held: contention.resolved with the result
// contended, so that the audit trail has the act though the write keeps
// waiting for its retry. Call with c.mu held.
func (c *Coordinator) retriedWaiting(con *contention, by, note string, cl caller, now time.Time) []gate.Event {
	view := con.view
	data, _ := json.Marshal(resolvedContention{Contention: view.ID, Action: blocker.ActionRetry, By: by, Note: note, Result: leasegate.Contended})
	evs := []gate.Event{{Type: gate.EventContentionResolved, At: now, Actor: by, Path: c.conflictFile(con.req.Paths, view.Holder),
		LeaseID: view.Holder.ID, Data: data,
		Reason: withNote(fmt.Sprintf("retry of contention %s (requester %s): still held by %s; the write keeps waiting for its retry", view.ID, con.req.Owner, view.Holder.Owner.Name), note)}}
	stamp(evs, cl.record())
	return evs
}
