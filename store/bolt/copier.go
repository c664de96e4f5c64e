package bolt

import (
	"encoding/binary"
	"fmt"

	bbolt "go.etcd.io/bbolt"
)

// appendFill is the fill percent of the events bucket. Keys only ever grow,
// so a split page is never written again: fill it completely.
const appendFill = 1.0

// copier moves the events of sealed journal segments into the bbolt file,
// one transaction per segment, so the committer never waits for bbolt's
// page writes and its two fsyncs. At Close it copies what is left,
// including the active segment, so a closed ledger's bbolt file holds
// every event.
func (l *Ledger) copier() {
	defer close(l.copied)
	for {
		select {
		case <-l.copyReq:
			l.copySealed()
		case <-l.stopped:
			l.copySealed()
			l.copyActive()
			return
		}
	}
}

// copySealed copies every sealed segment, oldest first. After a failure it
// copies nothing more: the events stay in the journal for the next Open.
func (l *Ledger) copySealed() {
	for l.copyErr == nil {
		l.mu.Lock()
		s, ok := l.mem.oldest()
		l.mu.Unlock()
		if !ok {
			return
		}
		if err := l.put(s.ents); err != nil {
			l.copyFailed(err)
			return
		}
		l.mu.Lock()
		l.mem.copiedOldest()
		l.mu.Unlock()
	}
}

// copyActive copies the active segment's events once the committer has
// stopped.
func (l *Ledger) copyActive() {
	if l.copyErr != nil {
		return
	}
	l.mu.Lock()
	ents := l.mem.active
	l.mu.Unlock()
	if err := l.put(ents); err != nil {
		l.copyFailed(err)
		return
	}
	l.mu.Lock()
	l.mem.copiedActive(l.j.active)
	l.mu.Unlock()
}

// copyFailed records a failed copy: the ledger takes no more Appends, as
// its journal can no longer be reused.
func (l *Ledger) copyFailed(err error) {
	l.copyErr = fmt.Errorf("copy journal into %s: %w", l.path, err)
	l.log.Error("copy failed", "error", l.copyErr)
	l.fail(l.copyErr)
}

// put writes events into the bbolt file in one transaction.
func (l *Ledger) put(ents []entry) error {
	if len(ents) == 0 {
		return nil
	}
	return l.db.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket(eventsBucket)
		b.FillPercent = appendFill
		keys := make([]byte, 0, 8*len(ents)) // bbolt keeps each key until the commit
		for _, e := range ents {
			keys = binary.BigEndian.AppendUint64(keys, e.seq)
			if err := b.Put(keys[len(keys)-8:], e.value); err != nil {
				return err
			}
		}
		return nil
	})
}

// fail makes every later Append fail with err.
func (l *Ledger) fail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failure == nil {
		l.failure = err
	}
}

func (l *Ledger) failed() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.failure
}
