package coordinator

import (
	"context"
	"time"
)

// idleCheckEvery bounds how often WaitIdle looks at the coordinator.
const idleCheckEvery = 10 * time.Second

// WaitIdle returns nil once the coordinator has had no owners, leases or
// held mutations (see Busy) for after without a break, looking every
// min(after, 10 s) on the coordinator's clock; it returns ctx's error if
// ctx ends first. The idle time counts from the call.
func (c *Coordinator) WaitIdle(ctx context.Context, after time.Duration) error {
	t := c.clock.Ticker(min(after, idleCheckEvery))
	defer t.Stop()
	idleSince := c.clock.Now()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		if c.Busy() {
			idleSince = c.clock.Now()
			continue
		}
		if c.clock.Since(idleSince) >= after {
			return nil
		}
	}
}
