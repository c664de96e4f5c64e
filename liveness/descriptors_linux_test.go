package liveness_test

import (
	"os"
	"runtime/debug"
	"testing"

	"github.com/leasegate/leasegate/liveness"
)

// TestLookupsHoldNoDescriptor: reading a process's start time, ancestry or
// state holds no descriptor once it returns. (gopsutil's NewProcess asks
// os.FindProcess, which opens a pidfd that only the garbage collector
// closes: a coordinator identifying its callers under a low `ulimit -n`
// ran out of descriptors and took its callers for unidentified.)
func TestLookupsHoldNoDescriptor(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // no collection closes what a lookup left open
	self := os.Getpid()
	before := openDescriptors(t)
	for range 50 {
		if _, err := liveness.ProcessStart(self); err != nil {
			t.Fatal(err)
		}
		if _, err := liveness.Ancestry(self); err != nil {
			t.Fatal(err)
		}
	}
	if after := openDescriptors(t); after > before+5 {
		t.Errorf("open descriptors after 50 ProcessStart and Ancestry calls: %d, before: %d", after, before)
	}
}

func openDescriptors(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(fds)
}
