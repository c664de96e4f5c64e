package integration_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// outage starts a worker whose one write, to a.txt, comes after the test
// has killed the coordinator, and returns the last ledger seq before it.
func outage(t *testing.T, env ...string) (*repo, *worker, uint64) {
	t.Helper()
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	// The worker starts once run has its registration's answer: the
	// coordinator is killed only after that, not between the registration's
	// commit and its answer (which run would then find refused).
	sig := t.TempDir()
	started, trigger := filepath.Join(sig, "started"), filepath.Join(sig, "go")
	w := r.workerEnv("alice", fmt.Sprintf(": > %s; while [ ! -e %s ]; do sleep 0.05; done; echo x >> a.txt", started, trigger), env...)
	eventually(t, 10*time.Second, "alice's worker started", func() bool { _, err := os.Stat(started); return err == nil })
	seq := r.status().LastSeq
	r.killServer()
	if err := os.WriteFile(trigger, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return r, w, seq
}

// checkGatedAfter waits (up to 30 s: a retry backoff, a heartbeat and a
// replay) for the worker to end well, and checks that its write landed
// with a grant to alice after seq, by a coordinator that answered after
// the outage.
func checkGatedAfter(t *testing.T, r *repo, w *worker, seq uint64) {
	t.Helper()
	if code := w.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("worker exit %d:\n%s", code, w.out)
	}
	if got := r.read("a.txt"); got != "a\nx\n" {
		t.Fatalf("a.txt is %q after the coordinator came back", got)
	}
	for _, e := range r.history("a.txt") {
		if e.Type == gate.EventGranted && e.Seq > seq && e.Lease.Owner.Name == "alice" {
			return
		}
	}
	t.Fatalf("no grant of a.txt to alice after the outage: the write was not gated")
}

// TestWritesWaitForTheCoordinator: with the coordinator killed, and the
// sidecar told not to start one (--no-start), a worker's write is held, not
// let through; once a coordinator answers again the write is gated by it
// and goes on.
func TestWritesWaitForTheCoordinator(t *testing.T) {
	r, w, seq := outage(t, "LEASEGATE_NO_START=1")
	eventually(t, 15*time.Second, "the notice that the write waits", func() bool {
		return strings.Contains(w.out.String(), "coordinator unavailable")
	})
	if got := r.read("a.txt"); got != "a\n" {
		t.Fatalf("a.txt is %q while no coordinator answered: the write slipped through ungated", got)
	}
	select {
	case <-w.done:
		t.Fatalf("the worker ended while its write had no answer:\n%s", w.out)
	default:
	}
	r.startServer(retryAfter, idleAfter)
	checkGatedAfter(t, r, w, seq)
}

// TestSidecarRestartsTheCoordinator: a coordinator killed while workers
// run is started again by a sidecar's next heartbeat; the write that came
// meanwhile is gated by the new coordinator and goes on.
func TestSidecarRestartsTheCoordinator(t *testing.T) {
	r, w, seq := outage(t)
	t.Cleanup(func() { killServe(r.dir) })
	checkGatedAfter(t, r, w, seq)
	if !strings.Contains(w.out.String(), "starting the coordinator again") {
		t.Fatalf("the worker was not told the coordinator was started again:\n%s", w.out)
	}
}

// killServe kills every `leasegate serve` process of the workspace dir,
// such as one a sidecar started.
func killServe(dir string) {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		args := strings.Split(string(b), "\x00")
		if err != nil || len(args) < 2 || args[0] != bin || args[1] != "serve" || !strings.Contains(string(b), dir) {
			continue
		}
		var pid int
		if _, err := fmt.Sscanf(p, "/proc/%d/cmdline", &pid); err == nil {
			kill(pid)
		}
	}
}
