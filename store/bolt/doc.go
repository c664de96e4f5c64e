// Package bolt is the embedded ledger backend: a store.Ledger in one bbolt
// file per workspace with a write-ahead journal next to it.
//
// One committer goroutine group-commits every queued Append: it frames the
// batch as journal records and writes them with one synchronous write (a
// bbolt commit costs several page writes and two fsyncs), then starts on
// the next batch at once; up to MaxInFlight commits are written at the
// same time and they are acknowledged in order. The journal is two segment
// files, zero-filled when created and written over from their start in
// turn, so a commit rewrites blocks the file system has already allocated.
// When the active segment is full, a copier goroutine writes its events
// into the bbolt file in one transaction and the segment is reused; Close
// copies the rest. Open copies whatever the journal holds beyond the bbolt
// file's last event (what a crash left), so an acknowledged Append
// survives a crash either way.
//
// The bbolt file holds a bucket "events" (key: big-endian uint64 Seq,
// value: the JSON-encoded gate.Event) and a bucket "meta" with the format
// version. The package knows nothing of leases beyond encoding events: it
// never decides, projects or validates them, and it imports no other store
// backend.
package bolt
