package coordinator

import (
	"fmt"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// validTTL refuses a heartbeat TTL out of bounds.
func validTTL(d time.Duration) error {
	if d < 0 || d > leasegate.MaxHeartbeatTTL {
		return &gate.DeniedError{Reason: gate.ReasonInputInvalid, Message: fmt.Sprintf("heartbeat ttl %s: want 0 to %s", d, leasegate.MaxHeartbeatTTL)}
	}
	return nil
}

// validWindows refuses windows an owner may not name: zero or negative
// where set, or longer than the contract's.
func validWindows(ws gate.Windows) error {
	if err := ws.Validate(); err != nil {
		return &gate.DeniedError{Reason: gate.ReasonInputInvalid, Message: err.Error()}
	}
	return nil
}

// windowsOf returns the windows that apply to an owner: those it named,
// the coordinator's for the rest. Call with c.mu held.
func (c *Coordinator) windowsOf(name string) gate.Windows {
	var named gate.Windows
	if o := c.owners[name]; o != nil {
		named = o.windows
	}
	return named.Or(c.cfg.Windows)
}
