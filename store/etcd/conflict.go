package etcd

import (
	"fmt"

	"github.com/leasegate/leasegate/store"
)

// ConflictError says another writer appended to the shared ledger after
// the head this ledger's caller decided on: nothing of the failed commit
// was written. Catch up (Ledger.CatchUp) and decide again.
type ConflictError struct {
	// Seen is the last seq this ledger had seen (and conditioned on).
	Seen uint64
	// Revision is the etcd revision at which the transaction failed.
	Revision int64
	// Stale is set when the call was queued before a CatchUp that read
	// other writers' events, and so was not even tried.
	Stale bool
	// SessionLost is set when the commit was refused because this
	// writer's session had expired; a new one has been started.
	SessionLost bool
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("another writer appended after seq %d (etcd revision %d): %v", e.Seen, e.Revision, store.ErrConflict)
}

func (e *ConflictError) Unwrap() error { return store.ErrConflict }

// WentBackError says the ledger in etcd holds less than this writer had
// read from it (errors.Is store.ErrWentBack): the cluster lost committed
// events, wiped or restored from an older snapshot. Nothing is committed
// until the writer has reloaded the ledger from its first event.
type WentBackError struct {
	// Seen and SeenRevision are the last seq this ledger had read and the
	// etcd revision of its commit.
	Seen         uint64
	SeenRevision int64
	// Ends and Revision are the seq the ledger ends at now and the etcd
	// revision it was read at.
	Ends     uint64
	Revision int64
}

func (e *WentBackError) Error() string {
	return fmt.Sprintf("the shared ledger in etcd ends at seq %d (etcd revision %d), behind seq %d (revision %d) already read from it: etcd lost committed events (wiped, or restored from an older snapshot): %v",
		e.Ends, e.Revision, e.Seen, e.SeenRevision, store.ErrWentBack)
}

func (e *WentBackError) Unwrap() error { return store.ErrWentBack }
