package coordinator_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
	"github.com/leasegate/leasegate/store/storetest"
)

var errDisk = errors.New("injected disk error")

// failingLedger is a real ledger whose appends fail while fail is set, as
// on a disk gone bad. The coordinator meets the failure through
// storetest.AppendOnly, which makes its EnqueueAck of this Append.
type failingLedger struct {
	store.Ledger
	fail *atomic.Bool
}

func (l failingLedger) Append(ctx context.Context, evs ...gate.Event) ([]gate.Event, error) {
	if l.fail.Load() {
		return nil, errDisk
	}
	return l.Ledger.Append(ctx, evs...)
}

// failingEnqueuer is a failingLedger whose EnqueueAck also fails while
// fail is set, the failure told through ack from a goroutine of its own,
// as the bbolt committer tells it (the caller may hold a lock that ack
// takes); otherwise the real ledger's group commit takes the call.
type failingEnqueuer struct{ failingLedger }

func (l failingEnqueuer) Enqueue(evs ...gate.Event) func() ([]gate.Event, error) {
	return l.EnqueueAck(nil, evs...)
}

func (l failingEnqueuer) EnqueueAck(ack func(error), evs ...gate.Event) func() ([]gate.Event, error) {
	if !l.fail.Load() {
		return l.Ledger.EnqueueAck(ack, evs...)
	}
	acked := make(chan struct{})
	go func() {
		defer close(acked)
		if ack != nil {
			ack(errDisk)
		}
	}()
	return func() ([]gate.Event, error) {
		<-acked
		return nil, errDisk
	}
}

// TestLedgerFailureFailsClosed: once an append fails, the request that
// caused it gets an error wrapping ErrFailed, and so does every later
// call, even after the disk recovers and even for a path the table
// already shows as held; nothing is granted until a restart, which
// replays only what was durable.
func TestLedgerFailureFailsClosed(t *testing.T) {
	kinds := []struct {
		name string
		wrap func(store.Ledger, *atomic.Bool) store.Ledger
	}{
		{name: "append", wrap: func(l store.Ledger, f *atomic.Bool) store.Ledger { return storetest.AppendOnly(failingLedger{l, f}) }},
		{name: "enqueue", wrap: func(l store.Ledger, f *atomic.Bool) store.Ledger { return failingEnqueuer{failingLedger{l, f}} }},
	}
	for _, kind := range kinds {
		t.Run(kind.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fail := new(atomic.Bool)
				e := startEnv(t, func(c *coordinator.Config) { c.Ledger = kind.wrap(c.Ledger, fail) })
				e.mutate("alice", "a.txt")
				fail.Store(true)
				r, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: []string{"b.txt"}})
				if !errors.Is(err, leasegate.ErrFailed) || !errors.Is(err, errDisk) || r.Outcome == leasegate.Granted {
					t.Fatalf("Mutate while the ledger fails = %s, %v; want an error wrapping ErrFailed and the cause", r.Outcome, err)
				}
				fail.Store(false)
				checkFailedClosed(t, e)
				e.reopen()
				if got := e.held("bob", gate.KindAuto); len(got) != 0 {
					t.Fatalf("after a restart bob holds %q, which never reached the ledger", got)
				}
				if got := e.held("alice", gate.KindAuto); !slices.Equal(got, []string{"a.txt"}) {
					t.Fatalf("after a restart alice holds %q, want a.txt", got)
				}
				if r := e.mutate("bob", "b.txt"); r.Outcome != leasegate.Granted {
					t.Fatalf("Mutate after the restart = %s, want granted", r.Outcome)
				}
			})
		})
	}
}

// checkFailedClosed checks that every call that would change state fails
// with ErrFailed and grants nothing.
func checkFailedClosed(t *testing.T, e *env) {
	t.Helper()
	calls := []struct {
		name string
		call func() (leasegate.Outcome, error)
	}{
		{name: "write of a free file", call: func() (leasegate.Outcome, error) {
			r, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"c.txt"}})
			return r.Outcome, err
		}},
		{name: "write the table shows held", call: func() (leasegate.Outcome, error) {
			r, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: []string{"b.txt"}})
			return r.Outcome, err
		}},
		{name: "write of an own file", call: func() (leasegate.Outcome, error) {
			r, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"a.txt"}})
			return r.Outcome, err
		}},
		{name: "contended write", call: func() (leasegate.Outcome, error) {
			r, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: []string{"a.txt"}})
			return r.Outcome, err
		}},
		{name: "check-out", call: func() (leasegate.Outcome, error) {
			_, err := e.c.Lease(e.ctx, leasegate.LeaseRequest{Op: gate.OpAcquire, Owner: gate.Owner{Name: "carol"},
				Scope: gate.Scope{Type: gate.ScopeSparse, Paths: []string{"docs/**"}}})
			return "", err
		}},
		{name: "register", call: func() (leasegate.Outcome, error) {
			return "", e.c.Register(e.ctx, leasegate.Registration{Owner: gate.Owner{Name: "dave"}})
		}},
	}
	for _, c := range calls {
		out, err := c.call()
		if !errors.Is(err, leasegate.ErrFailed) || out == leasegate.Granted {
			t.Errorf("%s after a ledger failure = %q, %v; want ErrFailed and no grant", c.name, out, err)
		}
	}
}
