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
