package coordinator_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/disktest"
	"github.com/leasegate/leasegate/store/bolt"
)

// TestEndOnFullDiskRefusedNotFailed: a worker's exit releases its 8,000
// auto leases in one commit, larger than a 1 MiB journal segment. With
// the ledger on a full tmpfs (a real ENOSPC; root only) the release is
// refused with LEDGER_DEGRADED before anything is applied, where its
// write used to fail the coordinator (ErrFailed, restart to recover); the
// leases stay held, writes that fit go on, and once space returns the
// same release goes through.
func TestEndOnFullDiskRefusedNotFailed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := disktest.Small(t, t.TempDir(), "32m")
		var ledger *bolt.Ledger
		e := startEnv(t, func(c *coordinator.Config) {
			if err := c.Ledger.Close(); err != nil {
				t.Fatal(err)
			}
			var err error
			if ledger, err = bolt.Open(filepath.Join(dir, "ledger.db"), bolt.Config{NoSync: true}); err != nil {
				t.Fatal(err)
			}
			c.Ledger = ledger
		})
		const n = 8000
		for i := 0; i < n; i += 500 {
			var paths []string
			for j := i; j < i+500; j++ {
				paths = append(paths, fmt.Sprintf("f%d.txt", j))
			}
			e.mutate("alice", paths...)
			// Let the copier take the sealed segment into the ledger
			// file, as the seconds between a worker's writes would.
			synctest.Wait()
		}
		filler := disktest.Fill(t, dir)
		if room := ledger.Headroom(); room < 128<<10 {
			t.Fatalf("journal room %d after the grants, want at least 128 KiB so that only the release's size can refuse it", room)
		}
		if _, err := e.c.End(e.ctx, "alice", "worker exited"); !errors.Is(err, leasegate.ErrLedgerDegraded) {
			t.Fatalf("End(alice) with %d leases on a full disk = %v, want ErrLedgerDegraded", n, err)
		}
		if got := len(e.held("alice", gate.KindAuto)); got != n {
			t.Fatalf("alice holds %d leases after a refused release, want %d", got, n)
		}
		e.mutate("bob", "g.txt")
		if err := os.Remove(filler); err != nil {
			t.Fatal(err)
		}
		if got, err := e.c.End(e.ctx, "alice", "worker exited"); err != nil || got != n {
			t.Fatalf("End(alice) once space returned = %d, %v; want %d, nil", got, err, n)
		}
		if got := e.held("alice", gate.KindAuto); len(got) != 0 {
			t.Fatalf("alice still holds %d leases after her release", len(got))
		}
	})
}
