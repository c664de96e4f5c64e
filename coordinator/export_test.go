package coordinator

import (
	"context"

	"github.com/leasegate/leasegate"
)

// PrimePeer reads the ancestry and command name of ctx's peer now. Tests call it outside a
// synctest bubble: inside, the fake clock skews the create times gopsutil
// derives from the uptime.
func PrimePeer(ctx context.Context) {
	if pc := leasegate.ConnectionOf(ctx); pc != nil {
		if ch := ancestry(pc); ch.comm != nil {
			ch.comm()
		}
	}
}

// Sync brings in what other coordinators sharing the ledger committed.
func (c *Coordinator) Sync(ctx context.Context) error { return c.sync(ctx) }
