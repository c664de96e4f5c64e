package etcd_test

import (
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasegate/leasegate/gate"
)

// TestCompactionCostsNothing compacts etcd's history (physically) between
// two writers' commits: the one that is behind still catches up, a
// replay from the start reads every event with the tokens it had, and
// the head watch goes on signalling, since the ledger reads by range at
// the current revision and never from a watch's old one.
func TestCompactionCostsNothing(t *testing.T) {
	cfg := testConfig(t)
	a, b, ctx, changes := watchedPair(t, cfg)
	before, err := a.Append(ctx, grant("a.go"), note("a"))
	if err != nil {
		t.Fatal(err)
	}
	cli := etcdClient(t, cfg)
	if err := b.CatchUp(ctx, func(gate.Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Append(ctx, note("b1")); err != nil {
		t.Fatal(err)
	}
	head, err := cli.Get(ctx, "compaction-point")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Compact(ctx, head.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
		t.Fatalf("Compact(%d) = %v", head.Header.Revision, err)
	}
	if _, err := b.Append(ctx, note("b2")); err != nil {
		t.Fatal(err)
	}
	var caught []string
	for len(caught) < 2 {
		select {
		case <-changes:
		case <-ctx.Done():
			t.Fatalf("a caught up with %v after the compaction, want b1 and b2", caught)
		}
		if err := a.CatchUp(ctx, func(e gate.Event) error { caught = append(caught, e.Actor); return nil }); err != nil {
			t.Fatalf("CatchUp after compaction = %v", err)
		}
	}
	var replayed []gate.Event
	if err := mustOpen(t, cfg).Replay(ctx, 0, func(e gate.Event) error { replayed = append(replayed, e); return nil }); err != nil {
		t.Fatalf("Replay after compaction = %v", err)
	}
	if len(replayed) != 4 || replayed[0].Lease.FencingToken != before[0].Lease.FencingToken {
		t.Fatalf("Replay after compaction = %d events, first token %d; want 4 and the token granted (%d)",
			len(replayed), replayed[0].Lease.FencingToken, before[0].Lease.FencingToken)
	}
}

// TestBatchesCounted: every commit's size is counted, for /v1/stats.
func TestBatchesCounted(t *testing.T) {
	l := mustOpen(t, testConfig(t))
	var waits []func() ([]gate.Event, error)
	for range 5 {
		waits = append(waits, l.Enqueue(note("a"), note("b")))
	}
	for _, wait := range waits {
		if _, err := wait(); err != nil {
			t.Fatal(err)
		}
	}
	b := l.Batches()
	if b.Events != 10 || b.Commits < 1 || b.Commits > 5 {
		t.Fatalf("Batches() = %d events in %d commits, want 10 in 1..5", b.Events, b.Commits)
	}
}
