package main

import (
	"context"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/workspace"
)

// anchorEvery is how often a coordinator checks that its workspace is
// still there.
const anchorEvery = time.Second

// exitWhenRemoved stops the coordinator once its workspace root, state
// directory or ledger is removed or replaced: its ledger is gone, so it
// has nothing left to serve or record. It returns when ctx ends.
func exitWhenRemoved(ctx context.Context, a *workspace.Anchor, stop context.CancelFunc, log hclog.Logger) {
	t := time.NewTicker(anchorEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if why := a.Removed(); why != "" {
			log.Warn("workspace removed: the coordinator stops", "why", why)
			stop()
			return
		}
	}
}
