package coordinator

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
)

// writer makes decided events durable in decision order. Decisions enqueue
// under the coordinator's mutex straight into the ledger (EnqueueAck), which
// groups whatever is queued into one commit and starts the next as soon as
// one ends: group commit without a timer. The ledger's acknowledgement
// answers each caller the moment its commit is known; one goroutine waits
// for the commits in order to publish them.
type writer struct {
	ledger  store.Ledger
	publish func([]gate.Event) // called with committed events, in order
	mu      sync.Mutex
	queue   []pending
	wake    chan struct{}
	err     error
	closed  bool
	// raced is set when the shared ledger refused a commit decided
	// without another coordinator's events; sync clears it by rebuilding.
	raced atomic.Bool
	// inflight counts the commits queued and not yet settled.
	inflight atomic.Int64
	// queued and settled count commits ever queued and settled (under mu);
	// settledCh is closed and replaced at each settlement.
	queued, settled uint64
	settledCh       chan struct{}
	// stats times each commit, from enqueue to durable.
	stats *commitStats
	// afterPublish answers a commit only once it is published: the
	// ledger fixes grants' tokens at commit, and publish gives them to
	// the table the requester's next call is checked against.
	afterPublish bool
}

type pending struct {
	wait func() ([]gate.Event, error) // waits for the ledger's commit
	done chan error                   // buffered; the first outcome reported stays
}

func newWriter(l store.Ledger, publish func([]gate.Event), afterPublish bool) *writer {
	return &writer{ledger: l, publish: publish, wake: make(chan struct{}, 1), settledCh: make(chan struct{}), stats: newCommitStats(), afterPublish: afterPublish}
}

// enqueue queues events and returns the channel that reports their fate.
// Call it while holding the coordinator's mutex so the ledger order is the
// decision order.
func (w *writer) enqueue(evs []gate.Event) <-chan error {
	done := make(chan error, 1)
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.err != nil:
		done <- w.err
	case w.closed:
		done <- store.ErrClosed
	case len(evs) == 0:
		done <- nil
	default:
		start := time.Now()
		w.inflight.Add(1)
		w.queued++
		// The ledger commits in EnqueueAck order, and we are under the
		// coordinator's mutex: several commits may be in flight.
		wait := w.ledger.EnqueueAck(func(err error) {
			w.observe(start, len(evs), err)
			if err != nil || !w.afterPublish {
				report(done, w.failure(err))
			}
		}, evs...)
		w.queue = append(w.queue, pending{wait: wait, done: done})
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	return done
}

// run publishes commits in order until ctx ends, then fails what is left.
func (w *writer) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			w.shutdown()
			return
		case <-w.wake:
		}
		for w.settleQueued() {
		}
	}
}

// settleQueued waits for the commits queued so far, in order, and
// publishes each; it reports whether there were any.
func (w *writer) settleQueued() bool {
	w.mu.Lock()
	batch := w.queue
	w.queue = nil
	w.mu.Unlock()
	for _, p := range batch {
		committed, err := p.wait()
		report(p.done, w.settle(committed, err))
		w.settledOne()
	}
	return len(batch) > 0
}

// observe records a successful commit of n events queued at start.
func (w *writer) observe(start time.Time, n int, err error) {
	if err == nil {
		w.stats.observe(start, n)
	}
}

// report delivers a commit's outcome unless one was delivered already.
func report(done chan error, err error) {
	select {
	case done <- err:
	default:
	}
}

// settle publishes a commit or records the failure that stops the
// coordinator.
func (w *writer) settle(committed []gate.Event, err error) error {
	if err == nil {
		w.publish(committed)
		return nil
	}
	return w.failure(err)
}

// failure records a ledger error, the first one for good, and returns the
// error that stops the coordinator; nil stays nil.
func (w *writer) failure(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, store.ErrConflict) {
		w.raced.Store(true)
		return fmt.Errorf("%w: %w", leasegate.ErrRaced, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = errors.Join(leasegate.ErrFailed, err)
	}
	return w.err
}

func (w *writer) shutdown() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	for _, p := range w.queue {
		report(p.done, store.ErrClosed)
		w.inflight.Add(-1)
		w.settled++
	}
	close(w.settledCh)
	w.settledCh = make(chan struct{})
	w.queue = nil
}

func (w *writer) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// settledOne counts one queued commit as settled (committed and published,
// or failed) and wakes whoever waits in caughtUp.
func (w *writer) settledOne() {
	w.inflight.Add(-1)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.settled++
	close(w.settledCh)
	w.settledCh = make(chan struct{})
}

// caughtUp waits until every commit queued before the call has settled, so
// that a reader of the ledger sees every decision already visible in
// memory (a lease status shows released is in history too).
func (w *writer) caughtUp(ctx context.Context) error {
	w.mu.Lock()
	target := w.queued
	w.mu.Unlock()
	for {
		w.mu.Lock()
		settled, ch := w.settled, w.settledCh
		w.mu.Unlock()
		if settled >= target {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
