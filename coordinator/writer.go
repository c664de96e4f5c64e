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
// under the coordinator's mutex; one goroutine appends everything queued in
// one call (one fsync), then starts on whatever queued meanwhile: group
// commit without a timer. With a ledger that queues commits itself
// (store.Enqueuer), the goroutine only waits for them in order to publish;
// one that also acknowledges them (store.AckEnqueuer) answers each caller the
// moment its commit is known, before that goroutine gets to it.
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
}

type pending struct {
	events []gate.Event
	wait   func() ([]gate.Event, error) // set when the ledger queued it already
	done   chan error                   // buffered; the first outcome reported stays
	start  time.Time                    // when it was queued, for the commit latency
}

func newWriter(l store.Ledger, publish func([]gate.Event)) *writer {
	return &writer{ledger: l, publish: publish, wake: make(chan struct{}, 1), settledCh: make(chan struct{}), stats: newCommitStats()}
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
		p := pending{events: evs, done: done, start: start}
		w.inflight.Add(1)
		w.queued++
		// The ledger orders commits by Enqueue order, and we are under the
		// coordinator's mutex: several commits may be in flight.
		switch enq := w.ledger.(type) {
		case store.AckEnqueuer:
			p.wait = enq.EnqueueAck(func(err error) { w.observe(start, len(evs), err); report(done, w.failure(err)) }, evs...)
		case store.Enqueuer:
			p.wait = enq.Enqueue(evs...)
		}
		w.queue = append(w.queue, p)
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	return done
}

// run commits batches until ctx ends, then fails what is left.
func (w *writer) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			w.shutdown()
			return
		case <-w.wake:
		}
		for w.commitOnce(ctx) {
		}
	}
}

func (w *writer) commitOnce(ctx context.Context) bool {
	w.mu.Lock()
	batch := w.queue
	w.queue = nil
	w.mu.Unlock()
	if len(batch) == 0 {
		return false
	}
	if batch[0].wait != nil {
		for _, p := range batch {
			committed, err := p.wait()
			if _, acked := w.ledger.(store.AckEnqueuer); !acked {
				w.observe(p.start, len(p.events), err)
			}
			report(p.done, w.settle(committed, err))
			w.settledOne()
		}
		return true
	}
	var all []gate.Event
	for _, p := range batch {
		all = append(all, p.events...)
	}
	committed, err := w.ledger.Append(context.WithoutCancel(ctx), all...)
	if err == nil {
		w.stats.observeBatch(len(all))
	}
	err = w.settle(committed, err)
	for _, p := range batch {
		w.observe(p.start, len(p.events), err)
		report(p.done, err)
		w.settledOne()
	}
	return true
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
