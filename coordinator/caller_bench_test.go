package coordinator_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
	"github.com/leasegate/leasegate/store/bolt"
)

// BenchmarkMutateIdentity measures a gated mutation with and without the
// identity check, in the same run: "no peer" is a caller in this process
// (no check, today's path before the check existed), "owner's process" a
// connection whose peer is this process, the registered owner's root, as
// a sidecar's connection is. The ancestry is read once per connection,
// before the timer. Two mutations: a write to a file the owner already
// holds (no ledger write) and a new file (a durable grant, NoSync).
func BenchmarkMutateIdentity(b *testing.B) {
	start, err := liveness.ProcessStart(os.Getpid())
	if err != nil {
		b.Fatal(err)
	}
	peer := leasegate.WithPeer(context.Background(), gate.Peer{PID: os.Getpid(), UID: uint32(os.Geteuid()), GID: uint32(os.Getegid())})
	coordinator.PrimePeer(peer)
	for _, held := range []bool{true, false} {
		for _, tc := range []struct {
			name string
			ctx  context.Context
		}{{"no peer", context.Background()}, {"owner's process", peer}} {
			b.Run(fmt.Sprintf("held=%v/%s", held, tc.name), func(b *testing.B) {
				c, stop := benchCoordinator(b)
				defer stop()
				w := gate.Owner{Name: "w", PID: os.Getpid(), StartTime: start}
				if err := c.Register(context.Background(), leasegate.Registration{Owner: w}); err != nil {
					b.Fatal(err)
				}
				req := leasegate.MutateRequest{Owner: "w", Op: "write", Paths: []string{"held.txt"}}
				if _, err := c.Mutate(tc.ctx, req); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := range b.N {
					if !held {
						req.Paths[0] = fmt.Sprintf("f%d.txt", i)
					}
					if r, err := c.Mutate(tc.ctx, req); err != nil || r.Outcome != leasegate.Granted {
						b.Fatalf("Mutate = %s, %v", r.Outcome, err)
					}
				}
			})
		}
	}
}

// benchCoordinator runs a coordinator on a NoSync bbolt ledger, its
// defaults changed by edits.
func benchCoordinator(b *testing.B, edits ...func(*coordinator.Config)) (*coordinator.Coordinator, func()) {
	ledger, err := bolt.Open(filepath.Join(b.TempDir(), "ledger.db"), bolt.Config{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	live, _ := liveness.New(liveness.Config{})
	cfg := coordinator.DefaultConfig()
	cfg.Ledger, cfg.Liveness = ledger, live
	for _, edit := range edits {
		edit(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c, err := coordinator.Open(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	var run sync.WaitGroup
	run.Add(1)
	go func() { defer run.Done(); _ = c.Run(ctx) }()
	return c, func() { cancel(); run.Wait() }
}
