package coordinator

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// stopSource is what opened an owner's stop-idle window.
type stopSource string

const (
	// stopReported: the owner said it stopped (`leasegate stop`, an
	// agent's Stop hook, a sidecar that saw its worker's tree stopped).
	// Only activity ends such a window.
	stopReported stopSource = "reported"
	// stopObserved: the liveness check found the owner's own process
	// stopped (state T), as when a job is stopped with its sidecar, which
	// can then report nothing. The owner's process running again ends it.
	stopObserved stopSource = "liveness"
)

// stopData is the payload of an owner.stopped event: the holder's idle
// window and when its release is due, and, for a stop the liveness check
// saw, its verdict (status, checked_at, evidence at the top level).
type stopData struct {
	*gate.Liveness
	IdleAfter gate.Window `json:"idle_after"`
	ReleaseAt time.Time   `json:"release_at"`
}

// openStopIdle opens (or opens again) the stop-idle window of o and records
// the stop with why and, for an observed stop, the liveness verdict that
// showed it. Call with c.mu held.
func (c *Coordinator) openStopIdle(o *owner, now time.Time, by stopSource, why string, v *gate.Liveness) (time.Time, <-chan error, error) {
	name := o.Name
	o.stoppedAt, o.stoppedBy = now, by
	w := c.windowsOf(name).Idle
	at := c.sched.StopIdle(name, now, w.After, func(time.Time) { c.stopIdle(name) })
	data, _ := json.Marshal(stopData{Liveness: v, IdleAfter: w, ReleaseAt: at})
	done, err := c.commit([]gate.Event{{Type: gate.EventOwnerStopped, At: now, Actor: name, Reason: why, Data: data}})
	return at, done, err
}

// followStop opens the stop-idle window of an owner whose process the
// liveness check found stopped, and closes a window it opened that way
// once the process runs again. A window the owner reported stays until
// activity: its process runs while its worker is stopped. It returns the
// commit of a recorded stop, or nil. Call with c.mu held.
func (c *Coordinator) followStop(name string, v gate.Liveness, now time.Time) <-chan error {
	o := c.owners[name]
	if o == nil || o.gone {
		return nil
	}
	switch {
	case v.Status == gate.Stopped && o.stoppedAt.IsZero():
		why := "owner process stopped, seen by the liveness check: " + strings.Join(v.Evidence, "; ")
		at, done, err := c.openStopIdle(o, now, stopObserved, why, &v)
		if err != nil {
			c.refused("observed stop "+name, "recording an observed stop failed", err, "owner", name)
			return nil
		}
		c.refusals.done("observed stop " + name)
		c.log.Info("owner process stopped: stop-idle window open", "owner", name, "release-at", at, "evidence", why)
		return done
	case v.Status == gate.Alive && o.stoppedBy == stopObserved:
		o.stoppedAt, o.stoppedBy = time.Time{}, ""
		c.sched.Activity(name)
		c.log.Info("owner process runs again: stop-idle window closed", "owner", name, "evidence", strings.Join(v.Evidence, "; "))
	}
	return nil
}
