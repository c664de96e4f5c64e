package coordinator_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
)

// BenchmarkNewDirNarrowing measures one narrowing through the coordinator
// in process: alice takes the subtree of own/, which holds entries files,
// and bob's new directory beneath it narrows her lease; both are released
// again. bob-ns/op is bob's request alone, the narrowing with its grant;
// entries=0 is the same round with nothing to list; past
// MaxNarrowEntries bob is refused without a narrowing (his write would
// wait), and the listing stops at the bound.
func BenchmarkNewDirNarrowing(b *testing.B) {
	for _, entries := range []int{0, 100, coordinator.MaxNarrowEntries, 50_000} {
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
			c, stop := benchCoordinator(b, func(cfg *coordinator.Config) { cfg.Workspace = ws })
			defer stop()
			ctx := context.Background()
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
			var narrowing time.Duration
			for i := 0; b.Loop(); i++ {
				ls := take("alice", "own")
				start := time.Now()
				bobs := take("bob", fmt.Sprintf("own/n%d", i))
				narrowing += time.Since(start)
				if len(bobs) == 0 && entries <= coordinator.MaxNarrowEntries {
					b.Fatal("bob's new directory was refused")
				}
				for _, l := range append(ls, bobs...) {
					if _, err := c.Lease(ctx, leasegate.LeaseRequest{Op: gate.OpRelease, Owner: l.Owner, LeaseID: l.ID, Token: l.FencingToken}); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(narrowing.Nanoseconds())/float64(b.N), "bob-ns/op")
		})
	}
}
