package bolt_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
	"github.com/leasegate/leasegate/store/bolt"
)

func key(seq uint64) []byte {
	return []byte{0, 0, 0, 0, 0, 0, 0, byte(seq)}
}

// rewrite changes a closed ledger file behind the package's back.
func rewrite(t *testing.T, path string, f func(events, meta *bbolt.Bucket) error) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bbolt.Tx) error { return f(tx.Bucket([]byte("events")), tx.Bucket([]byte("meta"))) }); err != nil {
		t.Fatal(err)
	}
}

// threeEvents returns the path of a closed ledger holding seqs 1..3.
func threeEvents(t *testing.T) string {
	t.Helper()
	path := tempLedgerPath(t)
	l := mustOpen(t, path, testConfig(t))
	if _, err := l.Append(context.Background(), notices("a", 3)...); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLayout(t *testing.T) {
	path := threeEvents(t)
	rewrite(t, path, func(events, meta *bbolt.Bucket) error {
		if v := string(meta.Get([]byte("format"))); v != "2" {
			t.Errorf("meta format = %q, want \"2\"", v)
		}
		var e gate.Event
		if err := json.Unmarshal(events.Get(key(2)), &e); err != nil || e.Seq != 2 || e.Path != "a/1" {
			t.Errorf("events[big-endian 2] = %+v, %v, want seq 2 path a/1", e, err)
		}
		return nil
	})
}

func TestOpenRejectsUnknownFormat(t *testing.T) {
	path := threeEvents(t)
	rewrite(t, path, func(_, meta *bbolt.Bucket) error { return meta.Put([]byte("format"), []byte("3")) })
	l, err := bolt.Open(path, testConfig(t))
	if err == nil {
		l.Close()
	}
	if !errors.Is(err, bolt.ErrUnsupportedFormat) {
		t.Fatalf("Open(format 3) = %v, want %v", err, bolt.ErrUnsupportedFormat)
	}
}

// TestReplayDetectsCorruption: damage that Open can see (the last key) fails
// Open, the rest fails Replay; both with ErrCorrupt.
func TestReplayDetectsCorruption(t *testing.T) {
	tests := []struct {
		name   string
		damage func(events, meta *bbolt.Bucket) error
	}{
		{"undecodable event", func(ev, _ *bbolt.Bucket) error { return ev.Put(key(2), []byte("{not json")) }},
		{"gap", func(ev, _ *bbolt.Bucket) error { return ev.Delete(key(2)) }},
		{"seq disagrees with key", func(ev, _ *bbolt.Bucket) error { return ev.Put(key(2), ev.Get(key(3))) }},
		{"short key", func(ev, _ *bbolt.Bucket) error { return ev.Put([]byte{0, 0, 0, 0, 0, 0, 4}, []byte("{}")) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := threeEvents(t)
			rewrite(t, path, tc.damage)
			l, err := bolt.Open(path, testConfig(t))
			if err == nil {
				err = l.Replay(context.Background(), 0, func(gate.Event) error { return nil })
				l.Close()
			}
			if !errors.Is(err, store.ErrCorrupt) {
				t.Fatalf("Open and Replay(0) of a ledger with a %s = %v, want %v", tc.name, err, store.ErrCorrupt)
			}
		})
	}
}
