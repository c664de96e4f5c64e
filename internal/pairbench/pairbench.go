// Package pairbench runs a benchmark's operations from several clients at
// once and measures them: operations per second and latency percentiles.
// Benchmarks of the coordinator and of the servers it is compared with
// share it so that every figure is measured the same way; nothing the
// binary is built from may import it.
package pairbench

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Result is what a run of operations measured.
type Result struct {
	Elapsed   time.Duration   // wall time of the run (the sum, after Add)
	Latencies []time.Duration // one per operation that succeeded, sorted
}

// Run runs operations 1..n spread over clients goroutines, each taking the
// next number until none is left, and returns their latencies. op gets the
// client's index (0..clients-1) and the operation's number. The first
// error of each client ends that client's share; all of them are joined.
func Run(n, clients int, op func(ctx context.Context, client, i int) error) (Result, error) {
	ctx := context.Background()
	var next atomic.Int64
	lat := make([][]time.Duration, clients)
	errs := make([]error, clients)
	var wg sync.WaitGroup
	start := time.Now()
	for c := range clients {
		wg.Go(func() {
			for i := int(next.Add(1)); i <= n; i = int(next.Add(1)) {
				t := time.Now()
				if errs[c] = op(ctx, c, i); errs[c] != nil {
					return
				}
				lat[c] = append(lat[c], time.Since(t))
			}
		})
	}
	wg.Wait()
	r := Result{Elapsed: time.Since(start), Latencies: slices.Concat(lat...)}
	slices.Sort(r.Latencies)
	return r, errors.Join(errs...)
}

// Add merges o into r: the latencies of both, and the sum of their times.
func (r *Result) Add(o Result) {
	r.Elapsed += o.Elapsed
	r.Latencies = append(r.Latencies, o.Latencies...)
	slices.Sort(r.Latencies)
}

// Ops is the number of operations measured.
func (r Result) Ops() int { return len(r.Latencies) }

// PerSecond is the operations per second of wall time.
func (r Result) PerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Ops()) / r.Elapsed.Seconds()
}

// Percentile is the latency that p percent of the operations did not
// exceed (0 with none measured).
func (r Result) Percentile(p int) time.Duration {
	if len(r.Latencies) == 0 {
		return 0
	}
	return r.Latencies[min(len(r.Latencies)*p/100, len(r.Latencies)-1)]
}
