package coordinator

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// wakeKeyPrefix keys an early decision in the scheduler's retry index,
// apart from the contention's own retry.
const wakeKeyPrefix = "wake/"

// wokenData is the payload of a contention.woken event.
type wokenData struct {
	Contention string       `json:"contention_id"`
	Ended      gate.LeaseID `json:"ended_lease_id"`
	Result     gate.Reason  `json:"result"`
}

// wakeWaiters asks for an early decision of every waiting contention that
// waits on the lease e ends. The decision runs on the scheduler, after the
// commit that ended the lease, so it never runs inside another decision.
// The scheduler runs decisions due at one instant in the order they were
// asked for, so waiters are asked for in the order they were first denied:
// the file goes to the one that has waited longest, not to whichever the
// map of contentions yields first. Call with c.mu held.
func (c *Coordinator) wakeWaiters(e gate.Event) {
	var waiting []*contention
	for _, con := range c.byKey {
		if con.view.Outcome == leasegate.Contended && con.waitsOn[e.LeaseID] {
			waiting = append(waiting, con)
		}
	}
	slices.SortFunc(waiting, func(a, b *contention) int {
		return cmp.Or(a.view.FirstDeniedAt.Compare(b.view.FirstDeniedAt), strings.Compare(a.view.ID, b.view.ID))
	})
	for _, con := range waiting {
		id, ended := con.view.ID, e
		c.sched.ScheduleRetry(wakeKeyPrefix+id, e.At, 0, func(time.Time) { c.wake(id, ended) })
	}
}

// wake decides a waiting contention again once a lease it waited on has
// ended. Granted, the write proceeds at once and its retry is cancelled;
// still held by another lease, it keeps waiting for its one retry, now on
// the leases that still hold it.
func (c *Coordinator) wake(id string, ended gate.Event) {
	c.mu.Lock()
	con := c.contentions[id]
	if con == nil || con.view.Outcome != leasegate.Contended {
		c.mu.Unlock()
		return
	}
	o := c.owners[con.req.Owner]
	if o == nil || o.gone {
		c.mu.Unlock()
		return // the retry answers a requester that is gone
	}
	now := c.clock.Now()
	d, done, err := c.decideWoken(o.Owner, con, ended, now)
	switch {
	case err != nil:
		c.mu.Unlock()
		c.log.Error("early decision failed; the retry stays", "contention", id, "error", err)
		return
	case !d.Granted:
		if d.Reason == gate.ReasonHeldByOther && d.Holder != nil {
			con.holdBy(d)
		}
		c.mu.Unlock()
		return
	}
	c.sched.CancelRetry(id)
	delete(c.byKey, c.mutationKey(con.req.Owner, con.req.Paths))
	con.view.Outcome = leasegate.Granted // no retry or second wake decides it again
	c.mu.Unlock()
	err = <-done
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.log.Error("early grant failed", "contention", id, "error", err)
		c.decided(con, leasegate.Result{Outcome: leasegate.Denied, Reason: gate.ReasonInputInvalid, Message: "early grant failed: " + err.Error()})
		return
	}
	c.log.Info("waiter woken", "contention", id, "requester", con.req.Owner, "ended-lease", ended.LeaseID, "by", ended.Type)
	c.decided(con, leasegate.Result{Outcome: leasegate.Granted, Reason: gate.ReasonOK, Leases: c.shownTokens(grantedLeases(d))})
}

// decideWoken decides a woken contention's mutation and commits a grant
// together with the contention.woken event that says why it came early.
// Call with c.mu held.
func (c *Coordinator) decideWoken(o gate.Owner, con *contention, ended gate.Event, now time.Time) (gate.Decision, <-chan error, error) {
	req := gate.Request{Op: gate.OpAcquire, Owner: o, Kind: gate.KindAuto, Scope: gate.Scope{Type: gate.ScopeTypeOf(con.req.Paths), Paths: con.req.Paths, Files: con.req.Files}}
	d, pre, err := c.decideReclaiming(req, now)
	if err != nil || !d.Granted {
		return d, pre, err
	}
	c.fillIDs(d.Events, now)
	data, _ := json.Marshal(wokenData{Contention: con.view.ID, Ended: ended.LeaseID, Result: gate.ReasonOK})
	woken := gate.Event{Type: gate.EventContentionWoken, At: now, Actor: con.req.Owner, Path: con.req.Paths[0],
		LeaseID: ended.LeaseID, Reason: string(ended.Type), Data: data}
	done, err := c.commit(append(d.Events, woken))
	return d, both(pre, done), err
}

// holdBy records which leases hold a contention's paths after decision d.
func (con *contention) holdBy(d gate.Decision) {
	con.view.Holder = *d.Holder
	con.waitsOn = make(map[gate.LeaseID]bool, len(d.Conflicts))
	for _, l := range d.Conflicts {
		con.waitsOn[l.ID] = true
	}
	con.waitsOn[d.Holder.ID] = true
}
