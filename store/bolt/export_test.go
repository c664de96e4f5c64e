package bolt

// SetCommitHook makes every commit of l call f inside its transaction with
// the number of events in the commit; an error from f aborts the commit.
// Set it before the Append whose commit should see it.
func SetCommitHook(l *Ledger, f func(events int) error) { l.commitHook = f }

// Queued is how many Appends wait in l's queue for the committer.
func Queued(l *Ledger) int { return len(l.reqs) }

// WaitClosing returns once Close has been called on l.
func WaitClosing(l *Ledger) { <-l.quit }
