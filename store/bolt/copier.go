package bolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// appendFill is the fill percent of the events bucket. Keys only ever grow,
// so a split page is never written again: fill it completely.
const appendFill = 1.0

// copier moves the events of sealed journal segments into the bbolt file,
// one transaction per segment, so the committer never waits for bbolt's
// page writes and its two fsyncs. A copy that fails (a full disk) leaves
// the ledger degraded and is tried again every CopyRetry until it
// succeeds; meanwhile commits go on in the active segment, whose room is
// Headroom. At Close it copies what is left, including the active
// segment, so a closed ledger's bbolt file holds every event.
func (l *Ledger) copier() {
	defer close(l.copied)
	var retry <-chan time.Time
	for {
		select {
		case <-l.copyReq:
		case <-retry:
		case <-l.stopped:
			l.copyErr = errors.Join(l.copySealed(), l.copyActive())
			return
		}
		retry = nil
		if l.copySealed() != nil {
			retry = time.After(l.cfg.CopyRetry)
		}
	}
}

// copySealed copies every sealed segment, oldest first, and records the
// ledger's health: degraded by a failure, healthy again once every sealed
// segment is copied.
func (l *Ledger) copySealed() error {
	for {
		l.mu.Lock()
		s, ok := l.mem.oldest()
		l.mu.Unlock()
		if !ok {
			l.setDegraded(nil)
			return nil
		}
		if err := l.put(s.ents); err != nil {
			err = fmt.Errorf("copy journal into %s: %w", l.path, err)
			l.setDegraded(err)
			return err
		}
		l.mu.Lock()
		l.mem.copiedOldest()
		l.mu.Unlock()
	}
}

// copyActive copies the active segment's events once the committer has
// stopped. A failure leaves them in the journal for the next Open.
func (l *Ledger) copyActive() error {
	if l.Degraded() != nil {
		return nil // the sealed segment before them is not copied either
	}
	l.mu.Lock()
	ents := l.mem.active
	l.mu.Unlock()
	if err := l.put(ents); err != nil {
		err = fmt.Errorf("copy journal into %s: %w", l.path, err)
		l.log.Error("copy failed: the journal keeps the events for the next open", "error", err)
		return err
	}
	l.mu.Lock()
	l.mem.copiedActive(l.j.active)
	l.mu.Unlock()
	return nil
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
