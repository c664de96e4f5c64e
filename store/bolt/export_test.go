package bolt

import (
	"github.com/leasegate/leasegate/gate"
)

// SetCommitHook makes every commit of l call f before its journal write
// with the number of events in the commit; an error from f aborts the
// commit, which writes nothing.
// Set it before the Append whose commit should see it.
func SetCommitHook(l *Ledger, f func(events int) error) { l.commitHook = f }

// SetWriteHook makes every commit of l call f on its way to disk, just
// before its write, with the number of events; an error from f stands for
// a failed write. Commits in flight call it concurrently.
func SetWriteHook(l *Ledger, f func(events int) error) { l.writeHook = f }

// SetTakeHook makes the committer of l call f each time it takes the
// first request of its next batch.
func SetTakeHook(l *Ledger, f func()) { l.takeHook = f }

// Queued is how many Appends wait in l's queue for the committer.
func Queued(l *Ledger) int { return len(l.reqs) }

// WaitClosing returns once Close has been called on l.
func WaitClosing(l *Ledger) { <-l.quit }

// Frame encodes evs as one journal record numbered from first.
func Frame(evs []gate.Event, first uint64) []byte {
	buf, _, err := frame(nil, evs, first)
	if err != nil {
		panic(err)
	}
	return buf
}

// Rotations is how many times l's commits moved to the other journal
// segment. Call it after Close.
func Rotations(l *Ledger) int { return l.j.rotations }
