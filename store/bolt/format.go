package bolt

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	bbolt "go.etcd.io/bbolt"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
)

// formatVersion is the layout this package writes and reads: events keyed
// by big-endian Seq with JSON values, and the journal segments next to the
// file holding the latest events. Version 1 had no journal; a version 1
// file is taken as it is and marked version 2, so that a leasegate that
// knows no journal refuses it rather than miss events.
const (
	formatVersion   = "2"
	formatNoJournal = "1"
)

var (
	eventsBucket = []byte("events")
	metaBucket   = []byte("meta")
	formatKey    = []byte("format")
)

// ErrUnsupportedFormat is returned by Open for a file written in a layout
// this version does not know (a newer leasegate, or not a ledger).
var ErrUnsupportedFormat = errors.New("unsupported ledger format")

// prepare creates the buckets of a new file, checks the format of an
// existing one, and returns its last Seq. A new file gets new journal
// segments before it is marked with its format.
func prepare(db *bbolt.DB, path string) (last uint64, err error) {
	if isNew(db) {
		if err := resetJournal(path); err != nil {
			return 0, err
		}
	}
	if last, ok, err := readLast(db); ok || err != nil {
		return last, err
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(metaBucket)
		if err != nil {
			return err
		}
		if err := checkFormat(meta); err != nil {
			return err
		}
		events, err := tx.CreateBucketIfNotExists(eventsBucket)
		if err != nil {
			return err
		}
		last, err = lastKey(events)
		return err
	})
	return last, err
}

// readLast returns the last Seq of a file in the current format, without
// writing to it (a refused Open changes nothing); ok is false when the
// file needs its buckets or its format mark.
func readLast(db *bbolt.DB) (last uint64, ok bool, err error) {
	err = db.View(func(tx *bbolt.Tx) error {
		meta, events := tx.Bucket(metaBucket), tx.Bucket(eventsBucket)
		if meta == nil || events == nil || string(meta.Get(formatKey)) != formatVersion {
			return nil
		}
		ok = true
		last, err = lastKey(events)
		return err
	})
	return last, ok, err
}

// isNew reports whether db has not been marked with a format yet.
func isNew(db *bbolt.DB) bool {
	isNew := true
	_ = db.View(func(tx *bbolt.Tx) error {
		if meta := tx.Bucket(metaBucket); meta != nil {
			isNew = meta.Get(formatKey) == nil
		}
		return nil
	})
	return isNew
}

func checkFormat(meta *bbolt.Bucket) error {
	switch v := meta.Get(formatKey); {
	case v == nil, string(v) == formatNoJournal:
		return meta.Put(formatKey, []byte(formatVersion))
	case string(v) != formatVersion:
		return fmt.Errorf("format %q, want %q: %w", v, formatVersion, ErrUnsupportedFormat)
	}
	return nil
}

func lastKey(events *bbolt.Bucket) (uint64, error) {
	k, _ := events.Cursor().Last()
	if k == nil {
		return 0, nil
	}
	return decodeKey(k)
}

func encodeKey(seq uint64) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), seq)
}

func decodeKey(k []byte) (uint64, error) {
	if len(k) != 8 {
		return 0, fmt.Errorf("event key %x is not 8 bytes: %w", k, store.ErrCorrupt)
	}
	return binary.BigEndian.Uint64(k), nil
}

// decodeEvent reads the event stored under key seq: on the fast path
// when it is in the encoder's layout, else with encoding/json.
func decodeEvent(seq uint64, v []byte) (gate.Event, error) {
	e, ok := parseEvent(v)
	if !ok {
		e = gate.Event{}
		if err := json.Unmarshal(v, &e); err != nil {
			return e, fmt.Errorf("event %d: %w: %w", seq, store.ErrCorrupt, err)
		}
	}
	if e.Seq != seq {
		return e, fmt.Errorf("event under key %d has seq %d: %w", seq, e.Seq, store.ErrCorrupt)
	}
	return e, nil
}
