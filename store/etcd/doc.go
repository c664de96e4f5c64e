// Package etcd is the shared ledger backend: a store.Ledger kept in etcd,
// so that the coordinators of several clones of one repository, on several
// machines, append to one event sequence and fold it into one lease table.
//
// Events live under a workspace prefix. Each commit is one record: the key
// PREFIX/ledger/e/<first seq, 20 digits> holds the JSON array of the
// batch's events, and PREFIX/ledger/head holds the last seq. A commit is one
// etcd transaction conditioned on the head's ModRevision as this ledger
// last saw it: if another writer appended meanwhile the transaction does
// nothing and every call in the batch fails with a *ConflictError (errors.Is
// store.ErrConflict). The writer then reads what it missed (CatchUp),
// decides again and appends again; until it has caught up every append
// fails the same way, so nothing decided on a stale table is ever written.
//
// One committer goroutine group-commits everything queued, one
// transaction at a time, in queue order. A transaction whose outcome is
// unknown (etcd unreachable, no quorum) is resolved by reading the record
// back and retried until etcd answers or the ledger is closed: the caller
// is held, never told a guess.
//
// The package knows nothing of leases beyond encoding events, as
// store/bolt; it uses only go.etcd.io/etcd/client/v3's KV API.
package etcd
