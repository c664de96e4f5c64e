package coordinator_test

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
)

// fullLedger is a real ledger that reports itself degraded with no
// journal room left while full is set, as store/bolt does on a full disk.
type fullLedger struct {
	store.Ledger
	full *atomic.Bool
}

func (l fullLedger) Degraded() error {
	if l.full.Load() {
		return errors.New("write ledger.db: no space left on device")
	}
	return nil
}

func (l fullLedger) Headroom() int64 {
	if l.full.Load() {
		return 0
	}
	return 1 << 30
}

func (l fullLedger) HealthChanged() <-chan struct{} { return nil }

// syncBuffer is a log sink safe for the coordinator's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) count(s string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Count(b.buf.String(), s)
}

// TestRefusedReclaimLoggedOnce: a dead owner's reclaim refused by a
// degraded ledger is tried again every liveness round but logged once, so
// the coordinator's log does not eat the space the ledger needs back; the
// reclaim goes through, and is logged, once the ledger takes writes again.
func TestRefusedReclaimLoggedOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		full := new(atomic.Bool)
		log := &syncBuffer{}
		e := startEnv(t, func(c *coordinator.Config) {
			c.Ledger = fullLedger{c.Ledger, full}
			c.Logger = hclog.New(&hclog.LoggerOptions{Name: "test", Level: hclog.Info, Output: log})
		})
		e.mutate("alice", "a.txt")
		full.Store(true)
		e.live.set("alice", gate.Dead, deathEvidence)
		for range 5 {
			e.c.CheckLiveness(e.ctx)
		}
		if n := log.count("reclaim failed"); n != 1 {
			t.Fatalf("%d reclaim failures logged in 5 rounds, want 1", n)
		}
		if n := log.count("reclaiming leases of dead owner"); n != 0 {
			t.Fatalf("a refused reclaim was logged as under way %d times", n)
		}
		if got := e.held("alice", gate.KindAuto); len(got) != 1 {
			t.Fatalf("alice holds %q while the ledger refuses writes, want a.txt still", got)
		}
		full.Store(false)
		e.c.CheckLiveness(e.ctx)
		if got := e.held("alice", gate.KindAuto); len(got) != 0 {
			t.Fatalf("alice still holds %q once the ledger takes writes", got)
		}
		if n := log.count("reclaiming leases of dead owner"); n != 1 {
			t.Fatalf("the reclaim was logged %d times, want 1", n)
		}
	})
}

// TestRefusedUngatedWriteLoggedOnce: a worker that goes on writing while
// the ledger refuses writes has each change refused, but the refusal is
// logged once per degraded episode, and again in the next one; a change
// is logged as an ungated write only once the ledger has recorded it.
func TestRefusedUngatedWriteLoggedOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		full := new(atomic.Bool)
		log := &syncBuffer{}
		e := startEnv(t, func(c *coordinator.Config) {
			c.Ledger = fullLedger{c.Ledger, full}
			c.Logger = hclog.New(&hclog.LoggerOptions{Name: "test", Level: hclog.Info, Output: log})
		})
		observe := func(p string) error { return e.c.ObserveChange(e.ctx, p, "write") }
		full.Store(true)
		for i := range 5 {
			if err := observe(fmt.Sprintf("full%d.txt", i)); err == nil {
				t.Fatalf("ObserveChange(full%d.txt) = nil on a full ledger, want its refusal", i)
			}
		}
		if n := log.count("ungated write not recorded"); n != 1 {
			t.Fatalf("%d refused ungated writes logged in 5 changes, want 1", n)
		}
		if n := log.count("ungated write:"); n != 0 {
			t.Fatalf("%d refused ungated writes logged as seen, want 0 (one line each would fill the disk the ledger needs)", n)
		}
		full.Store(false)
		if err := observe("ok.txt"); err != nil {
			t.Fatalf("ObserveChange(ok.txt) = %v once the ledger takes writes", err)
		}
		if n := log.count("ungated write:"); n != 1 {
			t.Fatalf("%d ungated writes logged once one is recorded, want 1", n)
		}
		full.Store(true)
		_ = observe("again.txt")
		if n := log.count("ungated write not recorded"); n != 2 {
			t.Fatalf("%d refused ungated writes logged over two episodes, want 2", n)
		}
	})
}

// TestUngatedWriteRefusedShownNotRecorded: an ungated write the degraded
// ledger refuses to record, seen by the watcher or reported by a hook,
// is still in status, marked as not recorded; one recorded once the
// ledger takes writes again is not marked.
func TestUngatedWriteRefusedShownNotRecorded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		full := new(atomic.Bool)
		e := startEnv(t, func(c *coordinator.Config) { c.Ledger = fullLedger{c.Ledger, full} })
		full.Store(true)
		if err := e.c.ObserveChange(e.ctx, "seen.txt", "write"); err == nil {
			t.Fatal("ObserveChange(seen.txt) = nil on a full ledger, want its refusal")
		}
		if err := e.c.ReportUngated(e.ctx, leasegate.UngatedWrite{Path: "told.txt", Op: "write", Reporter: "cc-s1"}); err == nil {
			t.Fatal("ReportUngated(told.txt) = nil on a full ledger, want its refusal")
		}
		full.Store(false)
		if err := e.c.ObserveChange(e.ctx, "later.txt", "write"); err != nil {
			t.Fatalf("ObserveChange(later.txt) = %v once the ledger takes writes", err)
		}
		s, err := e.c.Status(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, u := range s.Ungated {
			got[u.Path] = u.NotRecorded
		}
		want := map[string]bool{"seen.txt": true, "told.txt": true, "later.txt": false}
		if !maps.Equal(got, want) {
			t.Fatalf("status's ungated writes, path: not recorded = %v, want %v", got, want)
		}
	})
}
