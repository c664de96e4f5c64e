package coordinator

import (
	"context"
	"time"
)

// removedCheckEvery is how often WaitRemoved looks at the workspace: a
// removed workspace is noticed within a second, for one stat per anchored
// path per second.
const removedCheckEvery = time.Second

// Anchor tells whether the workspace a coordinator serves is still there
// (workspace.Anchor in production).
type Anchor interface {
	// Removed names the anchored path that is gone or replaced, and ""
	// while every one is still there.
	Removed() string
}

// WaitRemoved returns why once a's workspace root, state directory or
// ledger has been removed or replaced, looking every second on the
// coordinator's clock: its ledger is then gone, so the coordinator has
// nothing left to serve or record. It returns ctx's error if ctx ends
// first.
func (c *Coordinator) WaitRemoved(ctx context.Context, a Anchor) (string, error) {
	t := c.clock.Ticker(removedCheckEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-t.C:
		}
		if why := a.Removed(); why != "" {
			return why, nil
		}
	}
}
