package coordinator

import (
	"context"
	"fmt"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// lease carries out an explicit lease operation through gate.Decide. A
// denial is returned as a *gate.DeniedError along with the decision.
func (c *Coordinator) lease(ctx context.Context, lr leasegate.LeaseRequest) (leasegate.LeaseResult, error) {
	cl := c.callerOf(ctx)
	if err := cl.mayLease(&lr); err != nil {
		return leasegate.LeaseResult{}, err
	}
	if _, ok := c.shared(); ok && lr.Owner.Host == "" {
		lr.Owner.Host = c.host() // on a shared table a person's check-out names the machine it was taken on
	}
	req := gate.Request{Op: lr.Op, Owner: lr.Owner, Kind: gate.KindCheckout, Scope: lr.Scope,
		TTL: lr.TTL, LeaseID: lr.LeaseID, Token: lr.Token, Reason: lr.Reason, Admin: lr.Admin}
	if lr.Op == gate.OpAcquire && lr.Scope.Type != gate.ScopeFull {
		paths, err := c.cleanPaths(lr.Scope.Paths)
		if err != nil {
			return leasegate.LeaseResult{}, err
		}
		req.Scope.Paths = paths
		if req.Scope.Files, err = cleanFiles(lr.Scope.Files, paths); err != nil {
			return leasegate.LeaseResult{}, err
		}
	}
	var by *gate.Operator
	if lr.Op != gate.OpAcquire { // a grant takes nothing from anyone: its owner is record enough
		by = cl.record()
	}
	c.mu.Lock()
	now := c.clock.Now()
	d, pre, err := c.decideReclaiming(req, now)
	if err != nil {
		c.mu.Unlock()
		return leasegate.LeaseResult{}, err
	}
	if !d.Granted {
		c.mu.Unlock()
		if err := durable(ctx, pre); err != nil {
			return leasegate.LeaseResult{}, err
		}
		res := leasegate.LeaseResult{Decision: d}
		c.answerLeaseTokens(&res)
		return res, d.Err()
	}
	c.fillIDs(d.Events, now)
	d.Events = append(d.Events, c.leaseNotices(lr, d, now)...)
	stamp(d.Events, by)
	done, err := c.commit(d.Events)
	if err == nil {
		done = both(pre, done)
		c.afterLeaseOp(d)
	}
	res := leasegate.LeaseResult{Decision: d, Leases: c.touched(d)}
	c.mu.Unlock()
	if err == nil {
		err = durable(ctx, done)
	}
	if err == nil {
		c.answerLeaseTokens(&res)
	}
	return res, err
}

// leaseNotices tells an evicted owner why. Call with c.mu held.
func (c *Coordinator) leaseNotices(lr leasegate.LeaseRequest, d gate.Decision, now time.Time) []gate.Event {
	if lr.Op != gate.OpEvict || d.Lease == nil {
		return nil
	}
	return []gate.Event{leaseNotice(*d.Lease, leasegate.NoticeEvicted, now,
		fmt.Sprintf("lease %s was evicted by %s: %s", d.Lease.ID, lr.Admin, lr.Reason))}
}

// afterLeaseOp arms or cancels reminders for leases the decision touched.
// Call with c.mu held.
func (c *Coordinator) afterLeaseOp(d gate.Decision) {
	for _, e := range d.Events {
		switch {
		case e.Type == gate.EventGranted:
			c.armReminder(*e.Lease)
		case e.Type == gate.EventRenewed:
			if l, ok := c.table.Lease(e.LeaseID); ok {
				c.armReminder(l)
			}
		case e.Type.EndsLease():
			c.sched.CancelReminder(string(e.LeaseID))
		}
	}
}

// touched returns the current state of the leases a decision acted on.
func (c *Coordinator) touched(d gate.Decision) []gate.Lease {
	var out []gate.Lease
	for _, e := range d.Events {
		id := e.LeaseID
		if e.Lease != nil {
			id = e.Lease.ID
		}
		if l, ok := c.table.Lease(id); ok && e.IsLease() {
			out = append(out, l)
		}
	}
	if len(out) == 0 && d.Lease != nil {
		if l, ok := c.table.Lease(d.Lease.ID); ok {
			out = append(out, l)
		}
	}
	return out
}

// GetLease returns one lease, in any state the table still holds.
func (c *Coordinator) GetLease(_ context.Context, id gate.LeaseID) (gate.Lease, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if l, ok := c.table.Lease(id); ok {
		return l, nil
	}
	return gate.Lease{}, &gate.DeniedError{Reason: gate.ReasonNotFound, Message: "no lease " + string(id)}
}

// Leases returns the active leases, or with p those overlapping the path
// or glob p.
func (c *Coordinator) Leases(_ context.Context, p string) ([]gate.Lease, error) {
	if p == "" {
		c.mu.Lock()
		defer c.mu.Unlock()
		return nonNil(c.shownTokens(c.table.Active())), nil
	}
	cp, err := gate.CleanPath(p)
	if err != nil {
		return nil, gate.AsDenied(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return nonNil(c.shownTokens(c.table.Overlapping(gate.Scope{Type: gate.ScopeSparse, Paths: []string{cp}}))), nil
}

// Covers reports whether an active auto lease covers the workspace-relative
// path rel: a gate granted its holder the write, so a change the watcher
// sees there is the holder's. A check-out gates nothing, so it does not
// count, nor does a path that is not a clean relative one. A name with
// glob characters is that one file.
func (c *Coordinator) Covers(rel string) bool {
	cp, ok := plainPath(rel)
	return ok && c.anyAuto(cp, func(gate.Lease) bool { return true })
}

// CoversTree reports whether one active auto lease covers the directory
// dir (workspace-relative) and everything beneath it: a full-scope lease,
// or a pattern "P/**" with P dir or a directory above it. A check-out does
// not count: writes under it may come from anyone and are watched.
func (c *Coordinator) CoversTree(dir string) bool {
	cp, ok := plainPath(dir)
	return ok && c.anyAuto(cp+"/**", func(l gate.Lease) bool { return c.cfg.Folding.CoversTree(l.Scope, cp) })
}

// plainPath is the name p as the pattern naming it alone (gate.Literal),
// cleaned: the form a mutation's JSON carries it in, a byte that is not
// UTF-8 escaped; false when p is no clean relative path.
func plainPath(p string) (string, bool) {
	cp, err := gate.CleanPath(gate.Literal(p))
	return cp, err == nil
}

// anyAuto reports whether an active auto lease overlapping pattern passes
// test.
func (c *Coordinator) anyAuto(pattern string, test func(gate.Lease) bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range c.table.Overlapping(gate.Scope{Type: gate.ScopeSparse, Paths: []string{pattern}}) {
		if l.Kind != gate.KindCheckout && test(l) {
			return true
		}
	}
	return false
}
