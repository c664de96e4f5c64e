package coordinator

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// On a shared ledger a cluster answers a blocker as one coordinator
// would. The blocked write is held by the coordinator of the requester's
// machine, the one its sidecar is connected to, and that coordinator holds
// it again after a restart (adoptOpenBlockers). An operator's resolve may
// reach any coordinator of the cluster: that one decides it and commits
// the resolution, and the requester's coordinator, following the ledger,
// answers its held write from the committed resolution
// (resolvedElsewhere).

// holdsBlocker reports whether this coordinator holds the write of the
// blocker: on a shared ledger, only the coordinator of the requester's
// machine does. Call with c.mu held.
func (c *Coordinator) holdsBlocker(rep blocker.Report) bool {
	if _, ok := c.shared(); !ok {
		return true
	}
	return rep.Requester.Host == "" || rep.Requester.Host == c.host()
}

// requesterOf returns the owner a retry of the blocker decides for: the
// registered owner, or, on a shared ledger, the report's requester when
// it works on another machine, whose coordinator judges whether it is
// alive (and closes the blocker if it is not). ok is false when the
// requester is gone. Call with c.mu held.
func (c *Coordinator) requesterOf(rep blocker.Report) (gate.Owner, bool) {
	if o, ok := c.owners[rep.Requester.Name]; ok {
		return o.Owner, !o.gone
	}
	if !c.holdsBlocker(rep) {
		return rep.Requester, true
	}
	return gate.Owner{}, false
}

// resolvedElsewhere answers the held write of a blocker another
// coordinator of the cluster resolved: the sidecar waiting here hears the
// operator's answer as if it had been given here. Call with c.mu held.
func (c *Coordinator) resolvedElsewhere(e gate.Event) {
	var res blocker.Resolved
	if json.Unmarshal(e.Data, &res) != nil {
		return
	}
	h := c.held[res.ID]
	if h == nil || !h.resolvedAt.IsZero() {
		return
	}
	rep, _ := c.book.Get(res.ID)
	h.result, h.resolvedAt = c.resolutionResult(rep, res), c.clock.Now()
	select {
	case <-h.done:
	default:
		close(h.done)
	}
	c.log.Info("blocker resolved by another coordinator", "blocker", res.ID, "action", res.Action, "by", res.By)
	id := res.ID
	c.sched.ScheduleRetry(reportKeyPrefix+id, c.clock.Now(), 0, func(time.Time) { c.refreshReport(id) })
}

// answeredWhileAway answers the wait of a blocker resolved while no held
// write waited for it here: on a shared ledger, an operator resolved it on
// another coordinator while this one, its requester's, was down, and the
// replayed ledger shows it resolved, so it was not held again
// (adoptOpenBlockers). The requester's sidecar, waiting on it since,
// hears the operator's answer as it would have heard it here; before, it
// found no held write and asked for the write again from the start, and
// a deny or an abort was lost. A retry whose lease the requester no longer
// holds (reclaimed meanwhile) is not answered: the write is asked again,
// as a retry is decided again. Call with c.mu held.
func (c *Coordinator) answeredWhileAway(id string) (leasegate.Result, bool) {
	rep, ok := c.book.Get(id)
	if !ok || rep.Resolution == nil {
		return leasegate.Result{}, false
	}
	res := blocker.Resolved{ID: id, Action: rep.Resolution.Action, By: rep.Resolution.By, At: rep.Resolution.At, Note: rep.Resolution.Note}
	r := c.resolutionResult(rep, res)
	if r.Outcome == leasegate.Granted && len(r.Leases) == 0 {
		return leasegate.Result{}, false
	}
	return r, true
}

// noHoldWhy says why no held write waits on blocker id here, for a
// WaitBlocker that answered found none: a retry whose lease is gone
// (answeredWhileAway does not answer it) is said as such, since its
// requester's sidecar tells its worker. Call with c.mu held.
func (c *Coordinator) noHoldWhy(id string) string {
	rep, ok := c.book.Get(id)
	if !ok || rep.Resolution == nil {
		return "no held mutation for blocker " + id
	}
	res := rep.Resolution
	return fmt.Sprintf("blocker %s was resolved (%s by %s at %s) while no write waited on it here, and the lease its retry granted %s holds no more",
		id, res.Action, res.By, res.At.UTC().Format(time.RFC3339), rep.Requester.Name)
}

// reportKeyPrefix names the scheduler's entries that rewrite a blocker's
// report file once its resolution came from another coordinator: the
// rewrite takes c.mu, which the caller holds.
const reportKeyPrefix = "report/"

// resolutionResult is what a held write is answered for a resolution: a
// retry (committed only when granted) hands over the requester's leases
// of the blocked paths. Call with c.mu held.
func (c *Coordinator) resolutionResult(rep blocker.Report, res blocker.Resolved) leasegate.Result {
	switch res.Action {
	case blocker.ActionRetry:
		return leasegate.Result{Outcome: leasegate.Granted, Reason: gate.ReasonOK, Leases: c.shownTokens(c.leasesOf(rep.Requester.Name, rep.Paths)),
			Message: withNote("an operator retried blocker "+rep.ID+": granted", res.Note)}
	case blocker.ActionDeny:
		return leasegate.Result{Outcome: leasegate.Denied, Reason: gate.ReasonHeldByOther, Message: withNote("an operator denied the write", res.Note)}
	}
	return leasegate.Result{Outcome: leasegate.Aborted, Reason: gate.ReasonHeldByOther, Message: withNote("operator aborted the worker", res.Note)}
}

// leasesOf returns owner's active leases that cover any of paths. Call
// with c.mu held.
func (c *Coordinator) leasesOf(owner string, paths []string) []gate.Lease {
	var out []gate.Lease
	for _, l := range c.table.ByOwner(owner) {
		for _, p := range paths {
			if c.cfg.Folding.Covers(l.Scope, p) {
				out = append(out, l)
				break
			}
		}
	}
	return out
}

// resolvedAwayMessage says what a resolution did when the requester's
// held write waits on the coordinator of another machine, which answers
// it from the committed resolution.
func resolvedAwayMessage(a blocker.Action, r leasegate.Result, rep blocker.Report) string {
	what := map[leasegate.Outcome]string{leasegate.Granted: "retry granted", leasegate.Denied: "write denied with EBUSY",
		leasegate.Aborted: "worker aborted"}[r.Outcome]
	if what == "" {
		what = string(a) + " recorded"
	}
	return fmt.Sprintf("%s; %s's held write waits on the coordinator of %s, which answers it (once it is back, if it is down)", what, rep.Requester.Name, rep.Requester.Host)
}
