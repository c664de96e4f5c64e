// Package bolt is the embedded ledger backend: a store.Ledger in one bbolt
// file per workspace, written by one committer goroutine that group-commits
// every queued Append in one transaction (one round of fsyncs: bbolt syncs
// the pages, then the meta page) and starts the next commit as soon as the
// previous one finishes.
//
// The file holds a bucket "events" (key: big-endian uint64 Seq, value: the
// JSON-encoded gate.Event) and a bucket "meta" with the format version. The
// package knows nothing of leases beyond encoding events: it never decides,
// projects or validates them, and it imports no other store backend.
package bolt
