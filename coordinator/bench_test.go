package coordinator_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
	"github.com/leasegate/leasegate/store/bolt"
)

// BenchmarkLeasePairs measures durable acquire+release pairs through the
// coordinator in process (no HTTP), with a real bbolt ledger: the
// coordinator's and the ledger's share of what the socket benchmark in
// package api measures.
func BenchmarkLeasePairs(b *testing.B) {
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			ledger, err := bolt.Open(filepath.Join(b.TempDir(), "ledger.db"), bolt.Config{})
			if err != nil {
				b.Fatal(err)
			}
			live, _ := liveness.New(liveness.Config{})
			cfg := coordinator.DefaultConfig()
			cfg.Ledger, cfg.Liveness = ledger, live
			ctx, cancel := context.WithCancel(context.Background())
			c, err := coordinator.Open(ctx, cfg)
			if err != nil {
				b.Fatal(err)
			}
			var run sync.WaitGroup
			run.Add(1)
			go func() { defer run.Done(); _ = c.Run(ctx) }()
			defer func() { cancel(); run.Wait() }()
			var next atomic.Int64
			var wg sync.WaitGroup
			start := time.Now()
			b.ResetTimer()
			for w := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					o := gate.Owner{Name: fmt.Sprint("w", w)}
					for i := next.Add(1); int(i) <= b.N; i = next.Add(1) {
						res, err := c.Lease(ctx, coordinator.LeaseRequest{Op: gate.OpAcquire, Owner: o,
							Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{fmt.Sprintf("w%d/f%d", w, i)}}})
						if err != nil {
							b.Error(err)
							return
						}
						l := res.Leases[0]
						if _, err := c.Lease(ctx, coordinator.LeaseRequest{Op: gate.OpRelease, Owner: o, LeaseID: l.ID, Token: l.FencingToken}); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "pairs/s")
		})
	}
}
