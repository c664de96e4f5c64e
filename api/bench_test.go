package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/pairbench"
	"github.com/leasegate/leasegate/liveness"
	"github.com/leasegate/leasegate/store/bolt"
)

// startCoordinator serves a real coordinator with a durable bbolt ledger
// on a unix socket in a temp dir and returns the socket.
func startCoordinator(tb testing.TB) string {
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
	return sock
}

// benchTransports are the client's two ways to the coordinator: plain
// HTTP requests, and the upgraded stream (api.StreamProtocol).
var benchTransports = []struct {
	name     string
	noStream bool
}{{"http", true}, {"stream", false}}

// clientsFor returns one client per worker, as every sidecar has its own,
// closed when the benchmark ends.
func clientsFor(b *testing.B, sock string, n int, noStream bool) []*api.Client {
	out := make([]*api.Client, n)
	for i := range out {
		cl, err := api.NewClient(api.ClientConfig{Socket: sock, NoStream: noStream})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(cl.Close)
		out[i] = cl
	}
	return out
}

// BenchmarkCoordinatorPairs measures durable acquire+release pairs over the
// unix socket, each worker with its own client: each op is one check-out
// acquire and its release, both fsync-committed before the answer. It
// reports pairs/s and the p50 and p99 latency of a pair.
func BenchmarkCoordinatorPairs(b *testing.B) {
	for _, tr := range benchTransports {
		for _, clients := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/clients=%d", tr.name, clients), func(b *testing.B) {
				cls := clientsFor(b, startCoordinator(b), clients, tr.noStream)
				runPairs(b, clients, func(ctx context.Context, worker, i int) error {
					return leasePair(ctx, cls[worker], worker, i)
				})
			})
		}
	}
}

// leasePair acquires a check-out lease on a file of its own and releases
// it.
func leasePair(ctx context.Context, cl *api.Client, worker, i int) error {
	owner := gate.Owner{Name: fmt.Sprintf("w%d", worker)}
	res, err := cl.Lease(ctx, leasegate.LeaseRequest{Op: gate.OpAcquire, Owner: owner,
		Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{fmt.Sprintf("w%d/f%d", worker, i)}}})
	if err != nil {
		return err
	}
	l := res.Leases[0]
	_, err = cl.Lease(ctx, leasegate.LeaseRequest{Op: gate.OpRelease, Owner: owner, LeaseID: l.ID, Token: l.FencingToken})
	return err
}

// BenchmarkTransportFloor is the baseline for the figures above, measured
// in the same run: two round trips per op that write nothing. For http, a
// trivial handler on a unix socket; for stream, two heartbeats of a
// registered owner (a map lookup under the coordinator's mutex) through
// the real server and client.
func BenchmarkTransportFloor(b *testing.B) {
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("http/clients=%d", clients), func(b *testing.B) {
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
			hcs := make([]*http.Client, clients)
			for i := range hcs {
				tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
					var d net.Dialer
					return d.DialContext(ctx, "unix", sock)
				}}
				defer tr.CloseIdleConnections()
				hcs[i] = &http.Client{Transport: tr}
			}
			runPairs(b, clients, func(ctx context.Context, worker, _ int) error {
				for range 2 {
					resp, err := hcs[worker].Post("http://x/", "application/json", nil)
					if err != nil {
						return err
					}
					resp.Body.Close()
				}
				return nil
			})
		})
	}
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("stream/clients=%d", clients), func(b *testing.B) {
			cls := clientsFor(b, startCoordinator(b), clients, false)
			for w, cl := range cls {
				if err := cl.Register(context.Background(), leasegate.Registration{Owner: gate.Owner{Name: fmt.Sprintf("w%d", w)}}); err != nil {
					b.Fatal(err)
				}
			}
			runPairs(b, clients, func(ctx context.Context, worker, _ int) error {
				for range 2 {
					if _, err := cls[worker].Heartbeat(ctx, fmt.Sprintf("w%d", worker)); err != nil {
						return err
					}
				}
				return nil
			})
		})
	}
}

// runPairs runs b.N ops spread over clients goroutines and reports pairs/s,
// latency percentiles and the CPU the process used per pair.
func runPairs(b *testing.B, clients int, op func(ctx context.Context, worker, i int) error) {
	b.ResetTimer()
	st, err := measurePairs(b.N, clients, op)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	st.report(b)
}

// pairStats is what a run of pairs measured.
type pairStats struct {
	Pairs   int
	Elapsed time.Duration
	P50     time.Duration
	P99     time.Duration
	CPU     time.Duration // user and system time of the measuring process
}

func (st pairStats) report(b *testing.B) {
	if st.Pairs == 0 {
		return
	}
	b.ReportMetric(float64(st.Pairs)/st.Elapsed.Seconds(), "pairs/s")
	b.ReportMetric(float64(st.P50.Microseconds()), "p50-µs")
	b.ReportMetric(float64(st.P99.Microseconds()), "p99-µs")
	b.ReportMetric(float64(st.CPU.Microseconds())/float64(st.Pairs), "cpu-µs/pair")
}

// measurePairs runs n ops spread over clients goroutines.
func measurePairs(n, clients int, op func(ctx context.Context, worker, i int) error) (pairStats, error) {
	cpu0 := cpuTime()
	r, err := pairbench.Run(n, clients, op)
	return pairStats{Pairs: r.Ops(), Elapsed: r.Elapsed, P50: r.Percentile(50), P99: r.Percentile(99),
		CPU: cpuTime() - cpu0}, err
}

// benchChildEnv, when set to "socket,clients,pairs,noStream", makes the
// test binary BenchmarkCoordinatorPairsChild's client process.
const benchChildEnv = "LEASEGATE_API_BENCH_CHILD"

// BenchmarkCoordinatorPairsChild is BenchmarkCoordinatorPairs with the
// clients in a process of their own, as sidecars are: the coordinator's
// process then runs only the server, the coordinator and the ledger, and
// the operating system, not one Go scheduler, shares the two cores.
// cpu-µs/pair is both processes' CPU.
func BenchmarkCoordinatorPairsChild(b *testing.B) {
	for _, tr := range benchTransports {
		for _, clients := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/clients=%d", tr.name, clients), func(b *testing.B) {
				sock := startCoordinator(b)
				b.ResetTimer()
				cpu0 := cpuTime()
				st, err := runChild(sock, clients, b.N, tr.noStream)
				st.CPU += cpuTime() - cpu0
				b.StopTimer()
				if err != nil {
					b.Fatal(err)
				}
				st.report(b)
			})
		}
	}
}

// runChild runs the pairs in a child process and returns what it measured.
func runChild(sock string, clients, n int, noStream bool) (pairStats, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,%d,%d,%t", benchChildEnv, sock, clients, n, noStream))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return pairStats{}, fmt.Errorf("bench child: %w: %s", err, stderr.String())
	}
	var st pairStats
	if err := json.Unmarshal(out, &st); err != nil {
		return pairStats{}, fmt.Errorf("bench child printed %q: %w", out, err)
	}
	return st, nil
}

// benchChild is the client process: it runs the pairs over its own
// clients and prints the pairStats as JSON.
func benchChild(arg string) int {
	var sock string
	var clients, n int
	var noStream bool
	if f := strings.Split(arg, ","); len(f) != 4 {
		fmt.Fprintf(os.Stderr, "%s=%q: want socket,clients,pairs,noStream\n", benchChildEnv, arg)
		return 2
	} else if _, err := fmt.Sscan(f[1]+" "+f[2]+" "+f[3], &clients, &n, &noStream); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	} else {
		sock = f[0]
	}
	cls := make([]*api.Client, clients)
	for i := range cls {
		cl, err := api.NewClient(api.ClientConfig{Socket: sock, NoStream: noStream})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		defer cl.Close()
		cls[i] = cl
	}
	st, err := measurePairs(n, clients, func(ctx context.Context, worker, i int) error {
		return leasePair(ctx, cls[worker], worker, i)
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_ = json.NewEncoder(os.Stdout).Encode(st)
	return 0
}
