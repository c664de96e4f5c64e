package coordinator_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
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
						res, err := c.Lease(ctx, leasegate.LeaseRequest{Op: gate.OpAcquire, Owner: o,
							Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{fmt.Sprintf("w%d/f%d", w, i)}}})
						if err != nil {
							b.Error(err)
							return
						}
						l := res.Leases[0]
						if _, err := c.Lease(ctx, leasegate.LeaseRequest{Op: gate.OpRelease, Owner: o, LeaseID: l.ID, Token: l.FencingToken}); err != nil {
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

// BenchmarkOpenLongHistory measures coordinator.Open on a ledger of
// 100,000 events (50,000 files each granted and released, as a worker
// that writes many files leaves them): the replay that every auto-start
// pays. It reports the live heap after the open, which holds at most
// KeepEnded ended leases whatever the history's length.
func BenchmarkOpenLongHistory(b *testing.B) {
	const files = 50_000
	path := filepath.Join(b.TempDir(), "ledger.db")
	ledger, err := bolt.Open(path, bolt.Config{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	table, now := gate.NewTable(), time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	ctx := context.Background()
	owner := gate.Owner{Name: "alice", Host: "box", PID: 4242, StartTime: now.UnixMilli()}
	for i := range files {
		now = now.Add(time.Millisecond)
		d := gate.Decide(gate.Request{Op: gate.OpAcquire, Owner: owner, Kind: gate.KindAuto,
			Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{fmt.Sprintf("src/d%03d/f%05d.go", i/100, i)}}}, table, now)
		d.Events[0].Lease.ID = gate.LeaseID(fmt.Sprintf("01JLEASE%018d", i))
		granted := appendApply(b, ledger, table, d.Events)
		l := granted.Lease
		d = gate.Decide(gate.Request{Op: gate.OpRelease, Owner: owner, LeaseID: l.ID, Token: l.FencingToken}, table, now)
		appendApply(b, ledger, table, d.Events)
	}
	if err := ledger.Close(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var heap uint64
	for range b.N {
		ledger, err := bolt.Open(path, bolt.Config{})
		if err != nil {
			b.Fatal(err)
		}
		cfg := coordinator.DefaultConfig()
		cfg.Ledger, cfg.Liveness = ledger, newFakeProber()
		c, err := coordinator.Open(ctx, cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = ms.HeapInuse
		runtime.KeepAlive(c)
		if err := ledger.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(2*files)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(heap)/(1<<20), "heap-MiB")
}

// appendApply appends one decision's events and applies what the ledger
// returns, and returns the first.
func appendApply(b *testing.B, l *bolt.Ledger, t *gate.Table, evs []gate.Event) gate.Event {
	b.Helper()
	got, err := l.Append(context.Background(), evs...)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range got {
		if err := t.Apply(e); err != nil {
			b.Fatal(err)
		}
	}
	return got[0]
}
