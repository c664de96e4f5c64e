package coordinator

import (
	"fmt"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// freedKeyPrefix keys the check of a blocker whose holder's lease ended
// in the scheduler's retry index.
const freedKeyPrefix = "freed/"

// freeFor reports whether the paths of open report r are free for its
// requester now: a grant decided on the table as it is, committing
// nothing, with the identities of the files its held write named (a file
// the holder holds under another name is not free). Call with c.mu held.
func (c *Coordinator) freeFor(r blocker.Report, now time.Time) (gate.Decision, bool) {
	o := c.owners[r.Requester.Name]
	if o == nil || o.gone {
		return gate.Decision{}, false
	}
	var files []gate.File
	if h := c.held[r.ID]; h != nil {
		files = c.freshFiles(h.con.req.Files)
	}
	req := gate.Request{Op: gate.OpAcquire, Owner: o.Owner, Kind: gate.KindAuto, Scope: gate.Scope{Type: gate.ScopeTypeOf(r.Paths), Paths: r.Paths, Files: files}}
	d := gate.Decide(req, c.table, now)
	return d, d.Granted
}

// annotate sets FreeSince on open reports whose paths are free for their
// requester now, and on every report the holder's lease as the table has
// it now (HolderNow, with the steps that apply): a report is read long
// after its retry, and the holder may have let go or been reclaimed since.
// Call with c.mu held.
func (c *Coordinator) annotate(reps []blocker.Report, now time.Time) []blocker.Report {
	for i, r := range reps {
		l, _ := c.table.Lease(r.Holder.LeaseID) // the zero lease once pruned: Observe says so
		if r.Status == blocker.StatusOpen {
			reps[i].FreeSince = c.freeSince(r, l, now)
		}
		reps[i] = reps[i].Observe(l, now)
	}
	return reps
}

// freeSince is since when open report r's paths are free for its
// requester, zero while they are not; holder is r's holder lease as the
// table has it. Call with c.mu held.
func (c *Coordinator) freeSince(r blocker.Report, holder gate.Lease, now time.Time) time.Time {
	if _, free := c.freeFor(r, now); !free {
		return time.Time{}
	}
	if h := c.held[r.ID]; h != nil && !h.freeSince.IsZero() {
		return h.freeSince
	}
	if !holder.TerminatedAt.IsZero() {
		return holder.TerminatedAt
	}
	return now
}

// blockersWaitingOn asks for a check of every held blocker that waits on
// the lease e ends. Call with c.mu held.
func (c *Coordinator) blockersWaitingOn(e gate.Event) {
	for id, h := range c.held {
		if !h.resolvedAt.IsZero() || !h.con.waitsOn[e.LeaseID] {
			continue
		}
		id, at := id, e.At
		c.sched.ScheduleRetry(freedKeyPrefix+id, at, 0, func(time.Time) { c.checkFreed(id, at) })
	}
}

// checkFreed tells the operator (a notice, the report on disk) that the
// file a blocker waits for is free since at. The held write stays halted:
// the blocker is a hard stop until `resolve`. Still held by another lease
// (a pair held twice), the blocker now waits on that one.
func (c *Coordinator) checkFreed(id string, at time.Time) {
	c.mu.Lock()
	h := c.held[id]
	rep, ok := c.book.Get(id)
	if h == nil || !h.resolvedAt.IsZero() || !ok || rep.Status != blocker.StatusOpen {
		c.mu.Unlock()
		return
	}
	now := c.clock.Now()
	d, free := c.freeFor(rep, now)
	if !free {
		if d.Holder != nil {
			h.con.holdBy(d)
		}
		c.mu.Unlock()
		// The holder's lease ended all the same: the report on disk says so.
		c.refreshReport(id)
		return
	}
	h.freeSince = at
	rep = c.annotate([]blocker.Report{rep}, now)[0]
	done, err := c.commit([]gate.Event{notice(rep.Requester.Name, leasegate.NoticeFree, now,
		fmt.Sprintf("%s is free (blocker %s): %s; %s stays halted until then", gate.ShownPath(rep.Path), id, rep.FreeNote(), rep.Requester.Name))})
	c.mu.Unlock()
	if err == nil {
		err = <-done
	}
	if err != nil {
		c.log.Error("recording a freed blocker failed", "blocker", id, "error", err)
	}
	c.log.Info("blocked file free", "blocker", id, "file", rep.Path, "since", at)
	c.refreshReport(id)
}
