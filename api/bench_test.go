package api_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
	"github.com/leasegate/leasegate/store/bolt"
)

// startCoordinator serves a real coordinator with a durable bbolt ledger
// on a unix socket in a temp dir.
func startCoordinator(tb testing.TB) *api.Client {
	tb.Helper()
	dir := tb.TempDir()
	ledger, err := bolt.Open(filepath.Join(dir, "ledger.db"), bolt.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	live, err := liveness.New(liveness.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	cfg := coordinator.DefaultConfig()
	cfg.Ledger, cfg.Liveness = ledger, live
	ctx, cancel := context.WithCancel(context.Background())
	c, err := coordinator.Open(ctx, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	sock := filepath.Join(dir, "coord.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		tb.Fatal(err)
	}
	srv := api.NewServer(c, "admin-token", api.Health{}, nil)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _ = c.Run(ctx) }()
	go func() { defer wg.Done(); _ = srv.Serve(ctx, ln, false) }()
	tb.Cleanup(func() { cancel(); wg.Wait() })
	cl, err := api.NewClient(api.ClientConfig{Socket: sock})
	if err != nil {
		tb.Fatal(err)
	}
	return cl
}

// BenchmarkCoordinatorPairs measures durable acquire+release pairs over the
// unix socket: each op is one check-out acquire and its release, both
// fsync-committed before the answer. It reports pairs/s and the p50 and
// p99 latency of a pair.
func BenchmarkCoordinatorPairs(b *testing.B) {
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			cl := startCoordinator(b)
			runPairs(b, clients, func(ctx context.Context, worker, i int) error {
				owner := gate.Owner{Name: fmt.Sprintf("w%d", worker)}
				res, err := cl.Lease(ctx, coordinator.LeaseRequest{Op: gate.OpAcquire, Owner: owner,
					Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{fmt.Sprintf("w%d/f%d", worker, i)}}}, "", "")
				if err != nil {
					return err
				}
				l := res.Leases[0]
				_, err = cl.Lease(ctx, coordinator.LeaseRequest{Op: gate.OpRelease, Owner: owner, LeaseID: l.ID, Token: l.FencingToken}, "", "")
				return err
			})
		})
	}
}

// BenchmarkTransportFloor is the baseline for the figures above, measured
// in the same run: two trivial HTTP round trips per op on a unix socket.
func BenchmarkTransportFloor(b *testing.B) {
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			sock := filepath.Join(b.TempDir(), "floor.sock")
			ln, err := net.Listen("unix", sock)
			if err != nil {
				b.Fatal(err)
			}
			srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{}`))
			})}
			go func() { _ = srv.Serve(ln) }()
			defer srv.Close()
			hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				var d net.Dialer
				return d.DialContext(ctx, "unix", sock)
			}}}
			runPairs(b, clients, func(ctx context.Context, _, _ int) error {
				for range 2 {
					resp, err := hc.Post("http://x/", "application/json", nil)
					if err != nil {
						return err
					}
					resp.Body.Close()
				}
				return nil
			})
		})
	}
}

// runPairs runs b.N ops spread over clients goroutines and reports pairs/s
// and latency percentiles.
func runPairs(b *testing.B, clients int, op func(ctx context.Context, worker, i int) error) {
	ctx := context.Background()
	var next atomic.Int64
	lat := make([][]time.Duration, clients)
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1))
				if i > b.N {
					return
				}
				t := time.Now()
				if err := op(ctx, w, i); err != nil {
					b.Error(err)
					return
				}
				lat[w] = append(lat[w], time.Since(t))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	if len(all) == 0 {
		return
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "pairs/s")
	b.ReportMetric(float64(all[len(all)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
}
