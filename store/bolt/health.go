package bolt

// Degraded returns why the ledger is degraded — the last failure copying
// the journal into the bbolt file, which is retried every CopyRetry — or
// nil while it is healthy. Appends still commit while degraded, into the
// active journal segment: Headroom says how much more it takes.
func (l *Ledger) Degraded() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.degraded
}

// HealthChanged returns a channel that is closed when Degraded changes.
func (l *Ledger) HealthChanged() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.healthWake
}

// Headroom is how many more bytes of commits the active journal segment
// takes before it would grow past the space it was given when created.
// While the ledger is degraded the other segment cannot be reused, so a
// writer that keeps commits within Headroom never needs space the disk
// may not have: one event is about 300 bytes.
func (l *Ledger) Headroom() int64 {
	return l.cfg.JournalSize - l.off.Load()
}

// setDegraded records the copier's outcome and says a change in the log
// and on HealthChanged.
func (l *Ledger) setDegraded(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case (err == nil) == (l.degraded == nil):
		l.degraded = err
		return
	case err != nil:
		l.log.Warn("ledger degraded: the journal cannot be copied into the bbolt file, retrying", "error", err, "retry-every", l.cfg.CopyRetry)
	default:
		l.log.Info("ledger recovered: the journal is copied into the bbolt file again")
	}
	l.degraded = err
	close(l.healthWake)
	l.healthWake = make(chan struct{})
}
