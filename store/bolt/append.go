package bolt

import (
	"context"
	"fmt"
	"slices"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
)

// request is one Append waiting for the committer.
type request struct {
	events []gate.Event // the caller's events, copied; the committer sets Seq
	done   chan error   // buffered; receives the commit's outcome once
	ack    func(error)  // if set, also told the outcome, by the committer
}

// Append durably appends evs and returns them with Seq set, once their
// commit is on disk. ctx is honoured until the events are queued; after
// that the commit decides, and a caller whose ctx has ended meanwhile
// still gets the commit's outcome (its events may be committed). A failed
// commit fails every Append in it and leaves LastSeq unchanged. If the
// failure was an I/O error of the fsync itself, what reached the disk is
// unknown until the file is reopened, so a writer should treat any Append
// error as fatal, as the coordinator does.
func (l *Ledger) Append(ctx context.Context, evs ...gate.Event) ([]gate.Event, error) {
	if l.closing() {
		return nil, fmt.Errorf("append: %w", store.ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("append: %w", err)
	}
	if len(evs) == 0 {
		return nil, nil
	}
	r := &request{events: slices.Clone(evs), done: make(chan error, 1)}
	select {
	case l.reqs <- r:
	case <-ctx.Done():
		return nil, fmt.Errorf("append: %w", ctx.Err())
	case <-l.quit:
		return nil, fmt.Errorf("append: %w", store.ErrClosed)
	}
	if err := l.wait(r); err != nil {
		return nil, err
	}
	return r.events, nil
}

// Enqueue queues evs for the next commit without waiting for it and
// returns the function that waits for the outcome (what Append returns).
// Calls are committed in the order Enqueue was called.
func (l *Ledger) Enqueue(evs ...gate.Event) func() ([]gate.Event, error) {
	return l.EnqueueAck(nil, evs...)
}

// EnqueueAck is Enqueue that also calls ack with the commit's outcome, from
// the committer goroutine, as soon as it is known: a caller can be
// answered at once while the one that waits publishes commits in order.
// ack must not block. It is not called for a call the committer never took
// (the ledger closed first); wait reports store.ErrClosed for those.
func (l *Ledger) EnqueueAck(ack func(error), evs ...gate.Event) func() ([]gate.Event, error) {
	if l.closing() {
		return func() ([]gate.Event, error) { return nil, fmt.Errorf("append: %w", store.ErrClosed) }
	}
	if len(evs) == 0 {
		return func() ([]gate.Event, error) { return nil, nil }
	}
	r := &request{events: slices.Clone(evs), done: make(chan error, 1), ack: ack}
	select {
	case l.reqs <- r:
	case <-l.quit:
		return func() ([]gate.Event, error) { return nil, fmt.Errorf("append: %w", store.ErrClosed) }
	}
	return func() ([]gate.Event, error) {
		if err := l.wait(r); err != nil {
			return nil, err
		}
		return r.events, nil
	}
}

// finish reports a request's outcome to its ack, then to its waiter, so
// that whatever the ack does (the coordinator answers the caller and
// counts the commit) has happened by the time the wait returns, as in
// store/etcd.
func (r *request) finish(err error) {
	if r.ack != nil {
		r.ack(err)
	}
	r.done <- err
}

// wait returns the outcome of a queued request, or ErrClosed if the
// committer stopped before taking it.
func (l *Ledger) wait(r *request) error {
	select {
	case err := <-r.done:
		return err
	case <-l.stopped:
	}
	select {
	case err := <-r.done: // decided just before the committer stopped
		return err
	default:
		return fmt.Errorf("append: %w", store.ErrClosed)
	}
}
