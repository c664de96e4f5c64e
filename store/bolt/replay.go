package bolt

import (
	"context"
	"errors"
	"fmt"

	bbolt "go.etcd.io/bbolt"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
)

// replayChunk is how many events Replay reads per read transaction. fn runs
// outside any transaction, so a slow fn, or one that appends, never holds
// bbolt's mmap lock against the committer when the file grows.
const replayChunk = 1024

// Replay calls fn for every event with Seq > after, in order, up to the
// LastSeq observed when it starts. A gap in the sequence or an undecodable
// event fails with store.ErrCorrupt.
func (l *Ledger) Replay(ctx context.Context, after uint64, fn func(gate.Event) error) error {
	end := l.LastSeq()
	for {
		if l.closing() {
			return fmt.Errorf("replay: %w", store.ErrClosed)
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		if after >= end {
			return nil
		}
		evs, err := l.read(after+1, end)
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		for _, e := range evs {
			if err := fn(e); err != nil {
				return fmt.Errorf("replay seq %d: %w", e.Seq, err)
			}
		}
		after = evs[len(evs)-1].Seq
	}
}

// read returns the events from Seq from on, at most replayChunk and none
// past end: from the bbolt file while they are there, then from the
// journal's events held in memory.
func (l *Ledger) read(from, end uint64) ([]gate.Event, error) {
	l.mu.Lock()
	copied := l.mem.copiedSeq
	var held []entry
	if from > copied {
		held = l.mem.from(from, end, replayChunk)
	}
	l.mu.Unlock()
	if from <= copied {
		return l.readFile(from, min(end, copied))
	}
	if len(held) == 0 {
		return nil, fmt.Errorf("event %d missing: %w", from, store.ErrCorrupt)
	}
	return decodeEntries(held)
}

func decodeEntries(ents []entry) ([]gate.Event, error) {
	evs := make([]gate.Event, len(ents))
	for i, e := range ents {
		var err error
		if evs[i], err = decodeEvent(e.seq, e.value); err != nil {
			return nil, err
		}
	}
	return evs, nil
}

// readFile reads from the bbolt file, in one read transaction.
func (l *Ledger) readFile(from, end uint64) ([]gate.Event, error) {
	n := min(end-from+1, replayChunk)
	evs := make([]gate.Event, 0, n)
	err := guard(l.path, func() error {
		return l.db.View(func(tx *bbolt.Tx) error {
			c := tx.Bucket(eventsBucket).Cursor()
			for k, v := c.Seek(encodeKey(from)); k != nil && uint64(len(evs)) < n; k, v = c.Next() {
				e, err := decodeAt(from+uint64(len(evs)), k, v)
				if err != nil {
					return err
				}
				evs = append(evs, e)
			}
			if uint64(len(evs)) < n {
				return fmt.Errorf("event %d missing: %w", from+uint64(len(evs)), store.ErrCorrupt)
			}
			return nil
		})
	})
	if errors.Is(err, bbolt.ErrDatabaseNotOpen) {
		return nil, store.ErrClosed
	}
	var ce *CorruptError
	if errors.Is(err, store.ErrCorrupt) && !errors.As(err, &ce) {
		err = &CorruptError{File: l.path, Offset: -1, Seq: from + uint64(len(evs)), Cause: err.Error()}
	}
	return evs, err
}

// decodeAt decodes the event under key k, which must hold Seq want.
func decodeAt(want uint64, k, v []byte) (gate.Event, error) {
	seq, err := decodeKey(k)
	if err != nil {
		return gate.Event{}, err
	}
	if seq != want {
		return gate.Event{}, fmt.Errorf("event %d missing (next stored is %d): %w", want, seq, store.ErrCorrupt)
	}
	return decodeEvent(seq, v)
}
