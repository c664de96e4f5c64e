package pairbench_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/leasegate/leasegate/internal/pairbench"
)

func TestRunCountsEveryOperationOnce(t *testing.T) {
	seen := make([][]int, 3)
	r, err := pairbench.Run(100, 3, func(_ context.Context, c, i int) error {
		seen[c] = append(seen[c], i)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]bool{}
	for _, s := range seen {
		for _, i := range s {
			got[i] = true
		}
	}
	if r.Ops() != 100 || len(got) != 100 || !got[1] || !got[100] {
		t.Errorf("Run(100, 3) = %d ops, %d distinct numbers; want 100 of 1..100", r.Ops(), len(got))
	}
}

func TestRunJoinsErrors(t *testing.T) {
	boom := errors.New("boom")
	r, err := pairbench.Run(10, 2, func(_ context.Context, _, i int) error {
		if i == 5 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || r.Ops() != 9 {
		t.Errorf("Run with op 5 failing = %d ops, %v; want 9 ops and boom", r.Ops(), err)
	}
}

func TestPercentileAndAdd(t *testing.T) {
	var r pairbench.Result
	r.Add(pairbench.Result{Elapsed: time.Second, Latencies: []time.Duration{3, 1, 2}})
	r.Add(pairbench.Result{Elapsed: time.Second, Latencies: []time.Duration{100, 4}})
	if p50, p99 := r.Percentile(50), r.Percentile(99); p50 != 3 || p99 != 100 {
		t.Errorf("Percentile(50), (99) = %v, %v; want 3, 100", p50, p99)
	}
	if r.PerSecond() != 2.5 {
		t.Errorf("PerSecond() = %v, want 2.5", r.PerSecond())
	}
}
