package bolt_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
	"github.com/leasegate/leasegate/store/bolt"
)

// writeSegment replaces journal segment i of the closed ledger at path
// with recs, one after the other, followed by zeros.
func writeSegment(t *testing.T, path string, i int, recs ...[]byte) {
	t.Helper()
	var data []byte
	for _, r := range recs {
		data = append(data, r...)
	}
	data = append(data, make([]byte, 4096)...)
	if err := os.WriteFile(bolt.SegmentPath(path, i), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// marked returns n notices whose paths are who/0 ... who/n-1.
func marked(who string, n int) []gate.Event { return notices(who, n) }

// storedPaths replays the ledger at path (opened and closed here).
func storedPaths(t *testing.T, path string) ([]string, uint64) {
	t.Helper()
	return storedPathsWith(t, path, testConfig(t))
}

// storedPathsWith is storedPaths opening with cfg.
func storedPathsWith(t *testing.T, path string, cfg bolt.Config) ([]string, uint64) {
	t.Helper()
	l := mustOpen(t, path, cfg)
	defer l.Close()
	var got []string
	if err := l.Replay(context.Background(), 0, func(e gate.Event) error {
		got = append(got, e.Path)
		return nil
	}); err != nil {
		t.Fatalf("Replay(0) = %v", err)
	}
	return got, l.LastSeq()
}

// TestJournalRecovery: Open copies into the bbolt file the journal records
// that continue it, in Seq order across both segments, and stops at the
// first record that does not check out: a torn write loses only calls
// that were never acknowledged.
func TestJournalRecovery(t *testing.T) {
	tests := []struct {
		name     string
		segments func(path string) [][][]byte // per segment, its records
		want     []string
	}{
		{
			name: "active segment",
			segments: func(string) [][][]byte {
				return [][][]byte{{bolt.Frame(marked("j", 2), 4), bolt.Frame(marked("k", 1), 6)}, nil}
			},
			want: []string{"a/0", "a/1", "a/2", "j/0", "j/1", "k/0"},
		},
		{
			name: "sealed segment before the active one",
			segments: func(string) [][][]byte {
				return [][][]byte{{bolt.Frame(marked("k", 1), 6)}, {bolt.Frame(marked("j", 2), 4)}}
			},
			want: []string{"a/0", "a/1", "a/2", "j/0", "j/1", "k/0"},
		},
		{
			name: "records the bbolt file has are skipped",
			segments: func(string) [][][]byte {
				return [][][]byte{{bolt.Frame(marked("old", 3), 1), bolt.Frame(marked("j", 1), 4)}, {bolt.Frame(marked("older", 2), 1)}}
			},
			want: []string{"a/0", "a/1", "a/2", "j/0"},
		},
		{
			name: "torn last record",
			segments: func(string) [][][]byte {
				torn := bolt.Frame(marked("torn", 2), 5)
				torn[len(torn)-3] ^= 0xff
				return [][][]byte{{bolt.Frame(marked("j", 1), 4), torn}, nil}
			},
			want: []string{"a/0", "a/1", "a/2", "j/0"},
		},
		{
			name: "a record that does not continue the run ends it",
			segments: func(string) [][][]byte {
				return [][][]byte{{bolt.Frame(marked("j", 1), 4), bolt.Frame(marked("stale", 1), 2)}, nil}
			},
			want: []string{"a/0", "a/1", "a/2", "j/0"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := threeEvents(t)
			for i, recs := range tc.segments(path) {
				writeSegment(t, path, i, recs...)
			}
			got, last := storedPaths(t, path)
			if !slices.Equal(got, tc.want) || last != uint64(len(tc.want)) {
				t.Fatalf("after recovery paths = %v, LastSeq() = %d; want %v, %d", got, last, tc.want, len(tc.want))
			}
			again, _ := storedPaths(t, path) // recovered events are in the bbolt file now
			if !slices.Equal(again, tc.want) {
				t.Fatalf("after a second open paths = %v, want %v", again, tc.want)
			}
		})
	}
}

// TestJournalGapIsCorrupt: journal records that leave a gap after the
// bbolt file's last event mean an acknowledged event is lost: Open fails
// with ErrCorrupt instead of starting on a ledger it cannot explain.
func TestJournalGapIsCorrupt(t *testing.T) {
	path := threeEvents(t)
	writeSegment(t, path, 0, bolt.Frame(marked("j", 1), 5))
	l, err := bolt.Open(path, testConfig(t))
	if err == nil {
		l.Close()
	}
	if !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("Open with journal records from seq 5 after seq 3 = %v, want %v", err, store.ErrCorrupt)
	}
}

// TestNewFileResetsEmptyJournal: a bbolt file that is new starts with an
// empty journal when the journal holds nothing.
func TestNewFileResetsEmptyJournal(t *testing.T) {
	path := threeEvents(t)
	writeSegment(t, path, 0)
	writeSegment(t, path, 1)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if got, last := storedPaths(t, path); len(got) != 0 || last != 0 {
		t.Fatalf("new ledger next to an empty journal = %v, LastSeq() %d; want empty", got, last)
	}
}

// TestFormatOneIsUpgraded: a file written before the journal existed opens
// as it is and is marked with the current format.
func TestFormatOneIsUpgraded(t *testing.T) {
	path := threeEvents(t)
	rewrite(t, path, func(_, meta *bbolt.Bucket) error { return meta.Put([]byte("format"), []byte("1")) })
	if got, _ := storedPaths(t, path); !slices.Equal(got, []string{"a/0", "a/1", "a/2"}) {
		t.Fatalf("format 1 ledger replays %v", got)
	}
	rewrite(t, path, func(_, meta *bbolt.Bucket) error {
		if v := string(meta.Get([]byte("format"))); v != "2" {
			t.Errorf("format after opening a format 1 ledger = %q, want \"2\"", v)
		}
		return nil
	})
}

// TestJournalRotation: with small segments, commits move between them and
// full ones are copied into the bbolt file while appends and replays go
// on; every replay sees a gapless prefix, the segments stay near their
// size, and the ledger survives a reopen.
func TestJournalRotation(t *testing.T) {
	path := tempLedgerPath(t)
	cfg := testConfig(t)
	cfg.JournalSize = 4096
	l := mustOpen(t, path, cfg)
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 50 {
				if _, err := l.Append(ctx, marked(fmt.Sprintf("w%d-%d", w, i), 2)...); err != nil {
					t.Errorf("Append = %v", err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range 20 {
			checkGapless(t, l)
		}
	})
	wg.Wait()
	if got := l.LastSeq(); got != 400 {
		t.Fatalf("LastSeq() = %d, want 400", got)
	}
	checkGapless(t, l)
	if err := l.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	// The first rotation cannot wait for the copier (the other segment
	// starts empty); later ones may, while the active segment grows.
	if n := bolt.Rotations(l); n < 1 {
		t.Errorf("commits never moved to the other segment with JournalSize 4096 and ~40 KiB appended (%d rotations)", n)
	}
	got, last := storedPaths(t, path)
	if len(got) != 400 || last != 400 {
		t.Fatalf("after reopen %d events, LastSeq() %d; want 400", len(got), last)
	}
}

// checkGapless replays l and checks that the Seqs run 1, 2, 3, ...
func checkGapless(t *testing.T, l *bolt.Ledger) {
	t.Helper()
	next := uint64(1)
	if err := l.Replay(context.Background(), 0, func(e gate.Event) error {
		if e.Seq != next {
			return fmt.Errorf("seq %d where %d was due", e.Seq, next)
		}
		next++
		return nil
	}); err != nil {
		t.Errorf("Replay(0) during appends = %v", err)
	}
}

// TestOpenCreatesPrivateJournal: the journal segments are as private as the
// ledger file.
func TestOpenCreatesPrivateJournal(t *testing.T) {
	path := tempLedgerPath(t)
	mustOpen(t, path, testConfig(t))
	for i := range 2 {
		fi, err := os.Stat(bolt.SegmentPath(path, i))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != privateMode || fi.Size() != bolt.DefaultJournalSize {
			t.Fatalf("segment %d: mode %v, size %d; want %v, %d", i, got, fi.Size(), privateMode, bolt.DefaultJournalSize)
		}
	}
}
