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

// BenchmarkNewDirNarrowing measures one narrowing through the coordinator
// in process: alice takes the subtree of own/, which holds entries files,
// and bob's new directory beneath it narrows her lease; both are released
// again. entries=0 is the same round with nothing to list; past
// MaxNarrowEntries bob is refused without a narrowing (his write would
// wait), and the listing stops at the bound.
func BenchmarkNewDirNarrowing(b *testing.B) {
	for _, entries := range []int{0, 1000, coordinator.MaxNarrowEntries, 50_000} {
		b.Run(fmt.Sprintf("entries=%d", entries), func(b *testing.B) {
			ws := b.TempDir()
			if err := os.Mkdir(filepath.Join(ws, "own"), 0o755); err != nil {
				b.Fatal(err)
			}
			for i := range entries {
				if err := os.WriteFile(filepath.Join(ws, "own", fmt.Sprintf("f%05d", i)), nil, 0o644); err != nil {
					b.Fatal(err)
				}
			}
			ledger, err := bolt.Open(filepath.Join(b.TempDir(), "ledger.db"), bolt.Config{NoSync: true})
			if err != nil {
				b.Fatal(err)
			}
			live, _ := liveness.New(liveness.Config{})
			cfg := coordinator.DefaultConfig()
			cfg.Ledger, cfg.Liveness, cfg.Workspace = ledger, live, ws
			ctx, cancel := context.WithCancel(context.Background())
			c, err := coordinator.Open(ctx, cfg)
			if err != nil {
				b.Fatal(err)
			}
			var run sync.WaitGroup
			run.Add(1)
			go func() { defer run.Done(); _ = c.Run(ctx) }()
			defer func() { cancel(); run.Wait() }()
			for _, name := range []string{"alice", "bob"} {
				if err := c.Register(ctx, leasegate.Registration{Owner: gate.Owner{Name: name}}); err != nil {
					b.Fatal(err)
				}
			}
			take := func(owner, dir string) []gate.Lease {
				r, err := c.Mutate(ctx, leasegate.MutateRequest{Owner: owner, Op: "mkdir", Paths: []string{dir + "/**"}, Try: true})
				if err != nil {
					b.Fatal(err)
				}
				return r.Leases
			}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				ls := take("alice", "own")
				bobs := take("bob", fmt.Sprintf("own/n%d", i))
				if len(bobs) == 0 && entries <= coordinator.MaxNarrowEntries {
					b.Fatal("bob's new directory was refused")
				}
				for _, l := range append(ls, bobs...) {
					if _, err := c.Lease(ctx, leasegate.LeaseRequest{Op: gate.OpRelease, Owner: l.Owner, LeaseID: l.ID, Token: l.FencingToken}); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
