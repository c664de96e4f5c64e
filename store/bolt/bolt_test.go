package bolt_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/store"
	"github.com/leasegate/leasegate/store/bolt"
	"github.com/leasegate/leasegate/store/storetest"
)

// TestLedgerConformance runs the store suite against a real bbolt file
// with fsync on.
func TestLedgerConformance(t *testing.T) {
	storetest.RunLedgerTests(t, func(t *testing.T) (store.Ledger, func() store.Ledger) {
		path, cfg := tempLedgerPath(t), testConfig(t)
		return mustOpen(t, path, cfg), func() store.Ledger { return mustOpen(t, path, cfg) }
	})
}

// TestAppendOnlyConformance runs the store suite against
// storetest.AppendOnly over a bbolt ledger: the adapter the test doubles
// rely on keeps the append mode's order, acknowledgement and errors.
func TestAppendOnlyConformance(t *testing.T) {
	storetest.RunLedgerTests(t, func(t *testing.T) (store.Ledger, func() store.Ledger) {
		path, cfg := tempLedgerPath(t), testConfig(t)
		return storetest.AppendOnly(mustOpen(t, path, cfg)), func() store.Ledger { return storetest.AppendOnly(mustOpen(t, path, cfg)) }
	})
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		cfg     bolt.Config
		wantErr bool
	}{
		{name: "default", cfg: bolt.DefaultConfig()},
		{name: "zero means defaults", cfg: bolt.Config{}},
		{name: "no sync", cfg: bolt.Config{NoSync: true, MaxBatch: 1}},
		{name: "negative max batch", cfg: bolt.Config{MaxBatch: -1}, wantErr: true},
		{name: "negative lock timeout", cfg: bolt.Config{LockTimeout: -time.Second}, wantErr: true},
		{name: "negative journal size", cfg: bolt.Config{JournalSize: -1}, wantErr: true},
		{name: "negative max in flight", cfg: bolt.Config{MaxInFlight: -1}, wantErr: true},
		{name: "one commit in flight, small journal", cfg: bolt.Config{MaxInFlight: 1, JournalSize: 4096}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.cfg.Validate(); (err != nil) != tc.wantErr {
				t.Fatalf("Validate(%+v) = %v, want error %v", tc.cfg, err, tc.wantErr)
			}
			l, err := bolt.Open(tempLedgerPath(t), tc.cfg)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Open with %+v = %v, want error %v", tc.cfg, err, tc.wantErr)
			}
			if l != nil {
				l.Close()
			}
		})
	}
}

func TestOpenCreatesPrivateFile(t *testing.T) {
	path := tempLedgerPath(t)
	mustOpen(t, path, testConfig(t))
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != privateMode {
		t.Fatalf("ledger file mode = %v, want %v", got, privateMode)
	}
}

// TestOpenRefusesLockedLedger: a second opener of one file fails fast with
// ErrLocked and the path, and succeeds once the first has closed. (flock
// conflicts between two opens of a file in one process as between two
// processes; the crash test checks the latter.)
func TestOpenRefusesLockedLedger(t *testing.T) {
	path := tempLedgerPath(t)
	first := mustOpen(t, path, testConfig(t))
	cfg := testConfig(t)
	cfg.LockTimeout = 50 * time.Millisecond
	second, err := bolt.Open(path, cfg)
	if !errors.Is(err, store.ErrLocked) {
		if second != nil {
			second.Close()
		}
		t.Fatalf("Open(%q) while open elsewhere = %v, want %v", path, err, store.ErrLocked)
	}
	if !strings.Contains(err.Error(), path) {
		t.Fatalf("Open(%q) error %q does not name the file", path, err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	mustOpen(t, path, cfg)
}

func TestAppendNeverSplitsACallAcrossCommits(t *testing.T) {
	l := mustOpen(t, tempLedgerPath(t), testConfig(t))
	var sizes []int
	bolt.SetCommitHook(l, func(n int) error { sizes = append(sizes, n); return nil })
	evs := notices("big", 3000)
	got, err := l.Append(context.Background(), evs...)
	if err != nil || len(got) != len(evs) {
		t.Fatalf("Append(%d events) = %d events, %v", len(evs), len(got), err)
	}
	if len(sizes) != 1 || sizes[0] != len(evs) {
		t.Fatalf("Append(%d events) over MaxBatch %d made commits %v, want one of %d", len(evs), bolt.DefaultMaxBatch, sizes, len(evs))
	}
}
