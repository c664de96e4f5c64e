package gate_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/leasegate/leasegate/gate"
)

// TestMemoryPerLease builds tables of 100,000 single-file auto leases of one
// owner through Decide and Apply, as the coordinator does, and measures the
// live heap each holds per lease: records, ids, paths and index together.
// The ceilings are a quarter above what the table takes (173 B and 204 B
// per lease; 583 B and 891 B before leases were kept as compact records,
// and 269 B for the second before a file alone in its directory was kept
// without the directory), so that a regression of its layout fails here.
func TestMemoryPerLease(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 100,000 leases")
	}
	tests := []struct {
		name    string
		path    func(i int) string
		maxSize float64 // bytes per lease
	}{
		{"10 files per directory", func(i int) string {
			return fmt.Sprintf("pkg%03d/dir%02d/file%05d.txt", i/100, i/10%10, i)
		}, 216},
		{"1 file per directory", func(i int) string {
			return fmt.Sprintf("pkg%03d/dir%02d/file%05d.txt", i%1000, i/1000, i)
		}, 255},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			perLease := leaseMemory(t, tt.path)
			t.Logf("%.0f B of live heap per lease", perLease)
			if perLease > tt.maxSize {
				t.Errorf("live heap per lease = %.0f B, want at most %.0f B", perLease, tt.maxSize)
			}
		})
	}
}

// leaseMemory is the live heap per lease of a table of 100,000 auto leases
// of alice, one on each path(i).
func leaseMemory(t *testing.T, path func(i int) string) float64 {
	const n = 100_000
	before := liveHeap()
	tb := gate.NewTable()
	req := write("alice", "")
	for i := range n {
		req.Scope.Paths[0] = path(i)
		d := gate.Decide(req, tb, t0)
		if !d.Granted || len(d.Events) != 1 {
			t.Fatalf("Decide(acquire %s) = %s (%s), want one grant", req.Scope.Paths[0], d.Reason, d.Message)
		}
		e := d.Events[0]
		e.Seq, e.Lease.ID = uint64(i+1), gate.LeaseID(fmt.Sprintf("01JKW7%020d", i)) // ULID-shaped, as the coordinator makes
		if err := tb.Apply(e); err != nil {
			t.Fatalf("Apply(grant %s) = %v, want nil", req.Scope.Paths[0], err)
		}
	}
	req.Scope.Paths[0] = ""
	perLease := float64(liveHeap()-before) / n
	if tb.ActiveCount() != n {
		t.Fatalf("ActiveCount() = %d, want %d", tb.ActiveCount(), n)
	}
	return perLease
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
