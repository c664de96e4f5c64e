package coordinator

import (
	"fmt"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// sweep is the minute job: expire check-out leases whose TTL ran out (no
// grace, no renewal), send any reminder a timer missed, and prune terminal
// leases from memory; write again the blocker reports a full disk kept
// off it.
func (c *Coordinator) sweep(time.Time) {
	c.mu.Lock()
	now := c.clock.Now()
	var evs []gate.Event
	for _, l := range c.table.Expiring() {
		switch {
		case l.Expired(now):
			evs = append(evs,
				gate.Event{Type: gate.EventExpired, At: now, Actor: "coordinator", LeaseID: l.ID, Reason: "ttl elapsed"},
				leaseNotice(l, leasegate.NoticeExpired, now, fmt.Sprintf("lease %s expired at %s", l.ID, l.ExpiresAt.UTC().Format(time.RFC3339))))
			c.sched.CancelReminder(string(l.ID))
		case c.dueReminder(l, now):
			evs = append(evs, c.reminderEvents(l, now)...)
		}
	}
	done, err := c.commit(evs)
	c.table.Prune(now.Add(-c.cfg.PruneAfter))
	c.pruneWaits(now)
	c.mu.Unlock()
	if len(evs) > 0 {
		c.finish("sweep", done, err, "events", len(evs))
	}
	c.rewriteUnwritten()
}

func (c *Coordinator) dueReminder(l gate.Lease, now time.Time) bool {
	return l.Kind == gate.KindCheckout && !l.ReminderSent && !l.ExpiresAt.IsZero() &&
		!now.Before(l.ExpiresAt.Add(-c.remindBefore()))
}

func (c *Coordinator) remindBefore() time.Duration { return gate.DefaultRemindBefore }

func (c *Coordinator) reminderEvents(l gate.Lease, now time.Time) []gate.Event {
	msg := fmt.Sprintf("lease %s on %s expires in %s (at %s); there is no grace period: finish and `leasegate checkin %s`, or `leasegate renew %s`",
		l.ID, scopeText(l.Scope), l.Remaining(now).Round(time.Second), l.ExpiresAt.UTC().Format(time.RFC3339), l.ID, l.ID)
	return []gate.Event{
		{Type: gate.EventReminded, At: now, Actor: "coordinator", LeaseID: l.ID},
		leaseNotice(l, leasegate.NoticeReminder, now, msg),
	}
}

// armReminders arms a precise reminder timer for each active check-out
// lease (after a replay). Call before Run's goroutines start.
func (c *Coordinator) armReminders() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range c.table.Expiring() {
		c.armReminder(l)
	}
}

// armReminder arms the one reminder of a check-out lease. Call with c.mu
// held.
func (c *Coordinator) armReminder(l gate.Lease) {
	if l.Kind != gate.KindCheckout || l.ReminderSent || l.ExpiresAt.IsZero() {
		return
	}
	id := l.ID
	c.sched.RemindAt(string(id), l.ExpiresAt, func(time.Time) { c.remind(id) })
}

func (c *Coordinator) remind(id gate.LeaseID) {
	c.mu.Lock()
	now := c.clock.Now()
	l, ok := c.table.Lease(id)
	if !ok || !l.Live(now) || !c.dueReminder(l, now) {
		c.mu.Unlock()
		return
	}
	done, err := c.commit(c.reminderEvents(l, now))
	c.mu.Unlock()
	c.finish("reminder sent", done, err, "lease", id)
}

func scopeText(s gate.Scope) string {
	if s.Type == gate.ScopeFull {
		return "the whole workspace"
	}
	if len(s.Paths) == 1 {
		return gate.ShownPath(s.Paths[0])
	}
	return fmt.Sprintf("%s and %d more", gate.ShownPath(s.Paths[0]), len(s.Paths)-1)
}

// keepDecided is how long a decided contention or a resolved hold stays
// answerable to a client that polls late.
const keepDecided = 10 * time.Minute

// pruneWaits forgets decided contentions, resolved holds and the recent
// ends of leases once nobody can need them. Call with c.mu held.
func (c *Coordinator) pruneWaits(now time.Time) {
	for id, con := range c.contentions {
		if !con.decidedAt.IsZero() && now.Sub(con.decidedAt) > keepDecided {
			delete(c.contentions, id)
		}
	}
	for id, h := range c.held {
		if !h.resolvedAt.IsZero() && now.Sub(h.resolvedAt) > keepDecided {
			delete(c.held, id)
		}
	}
	c.ended.prune(now)
	c.gatedIn.prune(now)
}
