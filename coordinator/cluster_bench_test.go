package coordinator_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/etcdtest"
	"github.com/leasegate/leasegate/liveness"
	"github.com/leasegate/leasegate/store"
	"github.com/leasegate/leasegate/store/bolt"
	"github.com/leasegate/leasegate/store/etcd"
)

// BenchmarkSharedLeasePairs measures durable acquire+release pairs with
// 16 clients in one run: through one coordinator on bbolt, through one
// and through two coordinators (8 clients each) sharing a ledger on a
// real 3-member etcd cluster, and the floor, plain etcd transactions (two
// per pair, no coordinator, no batching). It reports pairs/s and the p50
// and p99 of one acquire.
func BenchmarkSharedLeasePairs(b *testing.B) {
	cluster, err := etcdtest.Start(b.TempDir(), 3)
	if err != nil {
		b.Fatalf("start etcd: %v", err)
	}
	defer cluster.Stop()
	var ws atomic.Int64
	openEtcd := func(b *testing.B, name string) store.Ledger {
		l, err := etcd.Open(context.Background(), etcd.Config{Endpoints: cluster.Endpoints, Workspace: name})
		if err != nil {
			b.Fatal(err)
		}
		return l
	}
	b.Run("bolt", func(b *testing.B) {
		l, err := bolt.Open(filepath.Join(b.TempDir(), "ledger.db"), bolt.Config{})
		if err != nil {
			b.Fatal(err)
		}
		pairs(b, []store.Ledger{l}, 16)
	})
	b.Run("etcd/coordinators=1", func(b *testing.B) {
		pairs(b, []store.Ledger{openEtcd(b, fmt.Sprint("bench-", ws.Add(1)))}, 16)
	})
	b.Run("etcd/coordinators=2", func(b *testing.B) {
		name := fmt.Sprint("bench-", ws.Add(1))
		pairs(b, []store.Ledger{openEtcd(b, name), openEtcd(b, name)}, 16)
	})
	b.Run("etcd-txn-floor", func(b *testing.B) { txnFloor(b, cluster.Endpoints, 16) })
}

// pairs runs clients acquire+release loops spread over one coordinator
// per ledger.
func pairs(b *testing.B, ledgers []store.Ledger, clients int) {
	ctx, cancel := context.WithCancel(context.Background())
	var run sync.WaitGroup
	defer func() { cancel(); run.Wait() }()
	var coords []*coordinator.Coordinator
	for _, l := range ledgers {
		live, _ := liveness.New(liveness.Config{})
		cfg := coordinator.DefaultConfig()
		cfg.Ledger, cfg.Liveness = l, live
		c, err := coordinator.Open(ctx, cfg)
		if err != nil {
			b.Fatal(err)
		}
		run.Add(1)
		go func() { defer run.Done(); _ = c.Run(ctx) }()
		coords = append(coords, c)
	}
	lat := make([][]time.Duration, clients)
	measure(b, clients, lat, func(w int, i int64) error {
		c := coords[w%len(coords)]
		o := gate.Owner{Name: fmt.Sprint("w", w)}
		t0 := time.Now()
		res, err := c.Lease(ctx, leasegate.LeaseRequest{Op: gate.OpAcquire, Owner: o,
			Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{fmt.Sprintf("w%d/f%d", w, i)}}})
		if err != nil {
			return err
		}
		lat[w] = append(lat[w], time.Since(t0))
		l := res.Leases[0]
		_, err = c.Lease(ctx, leasegate.LeaseRequest{Op: gate.OpRelease, Owner: o, LeaseID: l.ID, Token: l.FencingToken})
		return err
	})
}

// txnFloor is two plain etcd transactions per pair, one put each.
func txnFloor(b *testing.B, endpoints []string, clients int) {
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints, Logger: zap.NewNop()})
	if err != nil {
		b.Fatal(err)
	}
	defer cli.Close()
	ctx := context.Background()
	lat := make([][]time.Duration, clients)
	measure(b, clients, lat, func(w int, i int64) error {
		key := fmt.Sprintf("/floor/w%d/f%d", w, i)
		t0 := time.Now()
		if _, err := cli.Txn(ctx).Then(clientv3.OpPut(key, "granted")).Commit(); err != nil {
			return err
		}
		lat[w] = append(lat[w], time.Since(t0))
		_, err := cli.Txn(ctx).Then(clientv3.OpPut(key, "released")).Commit()
		return err
	})
}

// measure runs pair b.N times over clients goroutines and reports pairs/s
// and the latency percentiles recorded in lat.
func measure(b *testing.B, clients int, lat [][]time.Duration, pair func(w int, i int64) error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for w := range clients {
		wg.Go(func() {
			for i := next.Add(1); int(i) <= b.N; i = next.Add(1) {
				if err := pair(w, i); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "pairs/s")
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	if len(all) == 0 {
		return
	}
	slices.Sort(all)
	b.ReportMetric(float64(all[len(all)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
}
