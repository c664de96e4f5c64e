package leasegate

import (
	"errors"
)

// ErrFailed is returned once the ledger refused a write: the in-memory
// table may then hold state the ledger does not, so the coordinator stops
// answering (fail closed) until it is restarted and replays the ledger.
var ErrFailed = errors.New("coordinator failed: ledger write error, restart to recover")

// ErrLedgerDegraded refuses a write while the ledger's journal runs out of
// room because it cannot be copied into the ledger file (a full disk).
// The write is refused before anything is decided, so no acknowledged
// event can be lost; writes resume by themselves once there is space.
var ErrLedgerDegraded = errors.New("ledger degraded")

// ErrNoSession refuses a decision while this coordinator has no session
// on the shared ledger, or has a new one but has not yet reloaded its
// table since it lost the old: another machine may have reclaimed its
// owners' leases meanwhile, so its table can no longer be trusted. The
// answer is "unavailable": a worker's write stays held and is retried.
var ErrNoSession = errors.New("no session on the shared lease table")

// ErrRaced is returned when another coordinator sharing the ledger
// committed first and this one's decision was made without its events:
// nothing of it was written. Lease and Mutate catch up and decide again by
// themselves; other callers may simply ask again.
var ErrRaced = errors.New("another coordinator changed the shared lease table first")

// ErrLedgerMismatch is returned when a command is told which ledger to use
// (LEASEGATE_CLUSTER) and the coordinator serving the workspace serves
// another: its answers would be about the wrong lease table, so the
// command refuses it rather than read or change that table.
var ErrLedgerMismatch = errors.New("the coordinator serves another ledger")
