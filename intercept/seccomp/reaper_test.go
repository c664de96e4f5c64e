//go:build linux && (amd64 || arm64)

package seccomp_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leasegate/leasegate/intercept/seccomp"
)

// startReaped runs sh -c script under the gate with a reaper.
func startReaped(t *testing.T, script string) *seccomp.Supervisor {
	t.Helper()
	cfg := seccomp.DefaultConfig()
	cfg.Argv, cfg.Decider, cfg.Reap = []string{"sh", "-c", script}, &recorder{}, true
	sup, err := seccomp.Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Start(reap) = %v", err)
	}
	t.Cleanup(func() { sup.KillTree(); _ = sup.Close(); _, _ = sup.Wait() })
	return sup
}

// TestReaperReportsTheWorkersStatus: with a reaper in between, Pid is the
// worker (its own process group's leader) and Wait gives its status.
func TestReaperReportsTheWorkersStatus(t *testing.T) {
	sup := startReaped(t, "exit 3")
	if pg, err := syscall.Getpgid(sup.Pid()); err == nil && pg != sup.Pid() {
		t.Fatalf("worker pid %d in group %d, want its own", sup.Pid(), pg)
	}
	st, err := sup.Wait()
	if err != nil || st.ExitCode() != 3 {
		t.Fatalf("Wait() = %v, %v; want exit status 3", st, err)
	}
}

// TestReaperKillsTheWholeTree: KillTree ends the worker and descendants
// that left its process group and session, and Wait returns once they are
// gone.
func TestReaperKillsTheWholeTree(t *testing.T) {
	const marker = "47.1828"
	sup := startReaped(t, "setsid sleep "+marker+" & (set -m; sleep "+marker+") & sleep "+marker+"; wait")
	deadline := time.Now().Add(10 * time.Second)
	for len(withMarker(marker)) < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := len(withMarker(marker)); n < 3 {
		t.Fatalf("%d sleeps started, want 3", n)
	}
	sup.KillTree()
	select {
	case <-sup.Exited():
	case <-time.After(10 * time.Second):
		t.Fatal("the tree did not end within 10 s of KillTree")
	}
	if left := withMarker(marker); len(left) != 0 {
		t.Fatalf("processes left after KillTree: %v", left)
	}
}

// withMarker lists the live sleep processes whose command line holds
// marker.
func withMarker(marker string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		i := strings.LastIndexByte(string(stat), ')')
		if strings.HasPrefix(string(cmd), "sleep\x00"+marker) && i > 0 && !strings.HasPrefix(string(stat[i+1:]), " Z") {
			out = append(out, pid)
		}
	}
	return out
}
