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

// Headroom is how many more bytes of commits the journal takes before a
// segment would have to grow past the zero-filled space it was given
// when created: the rest of the active segment, and the other one too
// when its events are in the bbolt file. While the copy of the other
// segment fails (Degraded) or is still running, only the rest of the
// active one counts; a writer that keeps its commits within Headroom
// never needs space the disk may not have. One event is about 300 bytes.
func (l *Ledger) Headroom() int64 {
	l.mu.Lock()
	otherBusy := l.mem.busy[(l.j.active+1)%journalSegments]
	l.mu.Unlock()
	room := max(l.cfg.JournalSize-l.off.Load(), 0)
	if !otherBusy {
		room += l.cfg.JournalSize
	}
	return room
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
