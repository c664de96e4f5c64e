package api_test

import (
	"context"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
)

// heldMutator answers Mutate only once release is closed, as a coordinator
// whose ledger does not answer (etcd unreachable) or that is paused; it
// says on entered when the request is taken.
type heldMutator struct {
	api.Mutator
	entered, release chan struct{}
}

func (h heldMutator) Mutate(ctx context.Context, _ leasegate.MutateRequest) (leasegate.Result, error) {
	h.entered <- struct{}{}
	select {
	case <-h.release:
		return leasegate.Result{Outcome: leasegate.Granted}, nil
	case <-ctx.Done():
		return leasegate.Result{}, ctx.Err()
	}
}

// TestGateSaysWhenTheAnswerIsSlow: a mutation the coordinator has taken
// and not answered within SlowAfter is told once, on the observer's
// clock, and still waits for the answer; an answer in time tells nothing.
func TestGateSaysWhenTheAnswerIsSlow(t *testing.T) {
	clk := clock.NewMock()
	slow := make(chan time.Duration, 4)
	obs := api.Observer{Slow: func(d time.Duration) { slow <- d }, SlowAfter: 2 * time.Second, Clock: clk}
	req := leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"a.txt"}}
	m := heldMutator{entered: make(chan struct{}, 1), release: make(chan struct{})}
	done := make(chan leasegate.Result, 1)
	go func() {
		r, _ := api.Gate(bounded(t), m, req, obs)
		done <- r
	}()
	<-m.entered
	clk.Add(1900 * time.Millisecond)
	select {
	case d := <-slow:
		t.Fatalf("told slow after %s, before 2s", d)
	case <-done:
		t.Fatal("the mutation ended before its answer")
	default:
	}
	clk.Add(200 * time.Millisecond)
	select {
	case d := <-slow:
		if d != 2*time.Second {
			t.Errorf("told slow after %s, want 2s", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("not told 2s into a request with no answer")
	}
	clk.Add(time.Minute)
	close(m.release)
	if r := <-done; r.Outcome != leasegate.Granted {
		t.Fatalf("outcome = %v, want the grant that came late", r.Outcome)
	}
	if len(slow) != 0 {
		t.Errorf("told slow %d more times, want once", len(slow))
	}

	answered := heldMutator{entered: make(chan struct{}, 1), release: make(chan struct{})}
	close(answered.release)
	if r, err := api.Gate(bounded(t), answered, req, obs); err != nil || r.Outcome != leasegate.Granted {
		t.Fatalf("Gate = %v, %v; want granted", r.Outcome, err)
	}
	clk.Add(time.Minute)
	select {
	case d := <-slow:
		t.Errorf("told slow (%s) of a mutation answered at once", d)
	case <-time.After(50 * time.Millisecond):
	}
}
