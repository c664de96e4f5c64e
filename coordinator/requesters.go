package coordinator

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// closeDeadRequesters ends what only a live requester could end, so that
// nothing a dead process left behind keeps the coordinator busy: an owner
// that holds no auto lease and whose process is seen dead is recorded
// gone with the evidence (one holding auto leases is reclaimed instead),
// and the held mutations and waiting contentions of gone owners are
// closed, a held mutation's blocker resolved as aborted by "liveness"
// with the requester's evidence. Only process evidence (pid gone, reused,
// a zombie) marks an owner gone here: an owner judged by heartbeats alone
// is left to its own end. Call with c.mu held.
func (c *Coordinator) closeDeadRequesters(now time.Time) []<-chan error {
	var dones []<-chan error
	auto := map[string]bool{}
	for _, name := range c.autoOwners() {
		auto[name] = true
	}
	for name, o := range c.owners {
		if o.gone || auto[name] || o.PID <= 0 {
			continue
		}
		if v := c.judge(name, now); v.Status == gate.Dead {
			dones = append(dones, c.ownerDead(o, v, now))
		}
	}
	for id, h := range c.held {
		if h.resolvedAt.IsZero() && c.requesterGone(h.con.req.Owner) {
			dones = append(dones, c.abortHeld(id, h, now))
		}
	}
	for _, con := range c.contentions {
		if con.view.Outcome == leasegate.Contended && c.requesterGone(con.req.Owner) {
			delete(c.byKey, c.mutationKey(con.req.Owner, con.req.Paths))
			c.decided(con, leasegate.Result{Outcome: leasegate.Aborted, Reason: gate.ReasonNotFound, Message: "requester " + con.req.Owner + " is gone: " + c.goneWhy(con.req.Owner)})
		}
	}
	return dones
}

// ownerDead records an owner without auto leases gone, with the evidence.
// Call with c.mu held.
func (c *Coordinator) ownerDead(o *owner, v gate.Liveness, now time.Time) <-chan error {
	data, _ := json.Marshal(v)
	why := "owner dead: " + strings.Join(v.Evidence, "; ")
	o.gone = true
	c.sched.CancelIdle(o.Name)
	c.log.Warn("owner dead", "owner", o.Name, "evidence", why)
	done, err := c.commit([]gate.Event{{Type: gate.EventOwnerGone, At: now, Actor: o.Name, Reason: why, Data: data}})
	if err != nil {
		c.log.Error("owner gone not recorded", "owner", o.Name, "error", err)
		return nil
	}
	return done
}

// abortHeld resolves the blocker of a held mutation whose requester is
// gone, as aborted, and answers its waiters. Call with c.mu held.
func (c *Coordinator) abortHeld(id string, h *hold, now time.Time) <-chan error {
	why := fmt.Sprintf("requester %s is gone: %s", h.con.req.Owner, c.goneWhy(h.con.req.Owner))
	h.result = leasegate.Result{Outcome: leasegate.Aborted, Reason: gate.ReasonNotFound, Message: why}
	h.resolvedAt = now
	close(h.done)
	ev, err := blocker.ResolvedEvent(id, blocker.ActionAbort, "liveness", now, why)
	if err == nil {
		var done <-chan error
		if done, err = c.commit([]gate.Event{ev}); err == nil {
			c.log.Warn("blocker closed", "blocker", id, "why", why)
			return done
		}
	}
	c.log.Error("blocker of a gone requester not closed", "blocker", id, "error", err)
	return nil
}

// requesterGone reports whether a requester can no longer act: ended,
// reclaimed or seen dead, or never registered with this coordinator.
func (c *Coordinator) requesterGone(name string) bool {
	o := c.owners[name]
	return o == nil || o.gone
}

// goneWhy is the evidence of a gone owner, as last judged.
func (c *Coordinator) goneWhy(name string) string {
	o := c.owners[name]
	switch {
	case o == nil:
		return "not registered"
	case o.liveness.Status == gate.Dead && len(o.liveness.Evidence) > 0:
		return strings.Join(o.liveness.Evidence, "; ")
	}
	return "its worker ended"
}
