package coordinator

import (
	"context"
	"fmt"
	"testing"

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

// FailAncestryOnce makes the next read of a connection's ancestry fail
// with err, as /proc does when the coordinator runs out of descriptors;
// the reads after it give the ancestry of ctx's peer, read now (outside
// any synctest bubble, whose fake clock would skew it). Undone when the
// test ends.
func FailAncestryOnce(t testing.TB, ctx context.Context, err error) {
	real := readChain(leasegate.ConnectionOf(ctx))
	failed := false
	readAncestry = func(*leasegate.Connection) chain {
		if failed {
			return real
		}
		failed = true
		return chain{err: fmt.Errorf("cannot identify the connecting process: %w", err), busy: outOfResources(err)}
	}
	t.Cleanup(func() { readAncestry = readChain })
}
