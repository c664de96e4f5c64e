package store

import (
	"context"

	"github.com/leasegate/leasegate/gate"
)

// Ledger is the durable, append-only event log of one workspace. The
// coordinator is its only writer; the lease table is its projection, so
// replaying it from the start rebuilds the table.
type Ledger interface {
	// Append durably appends events in order, assigning consecutive Seq
	// numbers starting at LastSeq()+1, and returns copies with Seq set; evs
	// itself is not modified. It returns only after the events are on
	// stable storage (fsync). Concurrent Appends are group-committed: many
	// callers share one commit, all or nothing per call, and one call's
	// events are contiguous. Appending no events returns none and no error.
	//
	// ctx is honoured until the events are queued for a commit: a caller
	// whose ctx ends earlier gets its error and nothing is written. Once
	// queued, the commit decides the outcome, so a caller whose ctx ends
	// after that may still find its events committed; Append then waits
	// for the commit and reports it.
	Append(ctx context.Context, evs ...gate.Event) ([]gate.Event, error)

	// AckEnqueuer is the append mode the coordinator uses, so a store
	// without it is no Ledger and store/storetest holds every backend to
	// it.
	AckEnqueuer

	// Replay calls fn for every event with Seq > after, in order, up to
	// the LastSeq observed when Replay starts. It stops at the first error
	// from fn or ctx and returns it (wrapped, so errors.Is works). fn may
	// call Append; the events it appends are not replayed by this call.
	Replay(ctx context.Context, after uint64, fn func(gate.Event) error) error

	// LastSeq is the Seq of the last committed event, 0 for an empty
	// ledger. It stays valid after Close.
	LastSeq() uint64

	// Close fails every Append not yet committed with ErrClosed, waits for
	// a commit in progress, and releases the ledger (and its file lock, if
	// any). Later calls return nil.
	Close() error
}

// Enqueuer queues an append without waiting for its commit. Enqueue returns the function that waits for the
// outcome; calls are committed in the order Enqueue was called, so a
// single writer can keep several commits in flight without reordering.
type Enqueuer interface {
	Enqueue(evs ...gate.Event) (wait func() ([]gate.Event, error))
}

// AckEnqueuer is the append mode the coordinator uses: Enqueue whose
// outcome is also reported through ack (when not nil) the moment it is
// known, from the ledger's committer, so each caller can be answered
// while a single waiter publishes commits in order. Every Ledger is one.
//
// Calls are committed in the order EnqueueAck (or Enqueue) was called and
// get consecutive Seqs in that order. ack is called at most once, only
// after the commit is durable and LastSeq covers it and before wait
// returns, with the outcome wait reports; it must not block, and it is never called from within
// EnqueueAck itself (the caller may hold a lock that ack takes). A call
// the ledger never took (it was closed) may not be acknowledged; its wait
// reports ErrClosed.
type AckEnqueuer interface {
	Enqueuer
	EnqueueAck(ack func(error), evs ...gate.Event) (wait func() ([]gate.Event, error))
}

// GrantNumberer is a ledger that fixes each grant's fencing token itself
// when it commits it, instead of keeping the token the grant was queued
// with: store/etcd numbers grants by the revision of their commit, so that
// the tokens of every coordinator sharing the ledger form one increasing
// sequence. Append, the wait of Enqueue and EnqueueAck, and Replay give
// the grants with the token the commit fixed; tokens increase in Seq
// order. A ledger that is not a GrantNumberer, or answers false, keeps
// the tokens it is given.
type GrantNumberer interface {
	NumbersGrants() bool
}
