package coordinator

import (
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// recordRuleChange records that w.Reporter wrote a file that changes the
// gating rule or what git runs. Call with c.mu held.
func (c *Coordinator) recordRuleChange(w leasegate.UngatedWrite, now time.Time) (<-chan error, error) {
	c.log.Info("rule file changed", "path", w.Path, "op", w.Op, "by", w.Reporter)
	return c.commit([]gate.Event{{Type: gate.EventRuleChanged, At: now, Actor: w.Reporter, Path: w.Path, Reason: w.Op}})
}
