package etcd

import (
	"context"
	"fmt"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
)

// request is one Append call on its way to a commit.
type request struct {
	evs   []gate.Event
	ack   func(error) // may be nil
	epoch uint64      // the ledger's epoch when it was queued
	out   []gate.Event
	err   error
	done  chan struct{}
}

func (r *request) finish(out []gate.Event, err error) {
	r.out, r.err = out, err
	if r.ack != nil {
		r.ack(err)
	}
	close(r.done)
}

func (r *request) wait() ([]gate.Event, error) {
	<-r.done
	return r.out, r.err
}

func errClosed() error { return fmt.Errorf("etcd ledger: %w", store.ErrClosed) }

// Append commits evs in one transaction with whatever else is queued and
// returns them with Seq set. It fails with a *ConflictError when another
// writer appended after the last event this ledger has seen.
func (l *Ledger) Append(ctx context.Context, evs ...gate.Event) ([]gate.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return l.Enqueue(evs...)()
}

var _ store.Ledger = (*Ledger)(nil)

// Enqueue queues evs for the next commit and returns the function that
// waits for its outcome; commits follow the order of Enqueue calls.
func (l *Ledger) Enqueue(evs ...gate.Event) func() ([]gate.Event, error) {
	return l.EnqueueAck(nil, evs...)
}

// EnqueueAck is Enqueue that also reports the outcome through ack (when
// not nil) the moment it is known, from the committer goroutine. A call of
// no events, or one made after Close, is answered at once and not
// acknowledged: ack never runs inside EnqueueAck, whose caller may hold a
// lock that ack takes.
func (l *Ledger) EnqueueAck(ack func(error), evs ...gate.Event) func() ([]gate.Event, error) {
	r := &request{evs: evs, epoch: l.epoch.Load(), done: make(chan struct{})}
	if len(evs) == 0 {
		r.finish([]gate.Event{}, nil)
		return r.wait
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		r.finish(nil, errClosed())
		return r.wait
	}
	r.ack = ack
	l.queue = append(l.queue, r)
	l.mu.Unlock()
	l.signal()
	return r.wait
}
