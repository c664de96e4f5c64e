package integration_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// outageScript waits for the trigger file, then appends to a.txt: the
// write comes while the test has the coordinator down.
func outageScript(trigger string) string {
	return fmt.Sprintf("while [ ! -e %s ]; do sleep 0.05; done; echo x >> a.txt", trigger)
}

// grantedAfter reports whether a.txt's history holds a grant to owner
// with a sequence number above seq.
func grantedAfter(evs []gate.Event, owner string, seq uint64) bool {
	for _, e := range evs {
		if e.Type == gate.EventGranted && e.Seq > seq && e.Lease.Owner.Name == owner {
			return true
		}
	}
	return false
}

// TestWritesWaitForTheCoordinator: with the coordinator killed, and the
// sidecar told not to start one (--no-start), a worker's write is held, not
// let through; once a coordinator answers again the write is gated by it
// and goes on.
func TestWritesWaitForTheCoordinator(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	trigger := filepath.Join(t.TempDir(), "go")
	w := r.workerEnv("alice", outageScript(trigger), "LEASEGATE_NO_START=1")
	eventually(t, 5*time.Second, "alice registered", func() bool { return len(r.status().Owners) == 1 })
	seq := r.status().LastSeq
	r.killServer()
	if err := os.WriteFile(trigger, nil, 0o644); err != nil {
		t.Fatal(err)
	}
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
	if code := w.wait(t, 15*time.Second); code != 0 {
		t.Fatalf("worker exit %d:\n%s", code, w.out)
	}
	if got := r.read("a.txt"); got != "a\nx\n" {
		t.Fatalf("a.txt is %q after the coordinator came back", got)
	}
	if !grantedAfter(r.history("a.txt"), "alice", seq) {
		t.Fatalf("no grant of a.txt to alice after the outage: the write was not gated")
	}
}

// TestSidecarRestartsTheCoordinator: a coordinator killed while workers
// run is started again by a sidecar's next heartbeat; the write that came
// meanwhile is gated by the new coordinator and goes on.
func TestSidecarRestartsTheCoordinator(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	trigger := filepath.Join(t.TempDir(), "go")
	w := r.worker("alice", outageScript(trigger))
	eventually(t, 5*time.Second, "alice registered", func() bool { return len(r.status().Owners) == 1 })
	seq := r.status().LastSeq
	r.killServer()
	if err := os.WriteFile(trigger, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killServe(t, r.dir) })
	if code := w.wait(t, 20*time.Second); code != 0 {
		t.Fatalf("worker exit %d:\n%s", code, w.out)
	}
	if got := r.read("a.txt"); got != "a\nx\n" {
		t.Fatalf("a.txt is %q after the restart", got)
	}
	if !grantedAfter(r.history("a.txt"), "alice", seq) {
		t.Fatalf("no grant of a.txt to alice by the restarted coordinator")
	}
	if !strings.Contains(w.out.String(), "the coordinator is gone") {
		t.Fatalf("the worker was not told the coordinator was started again:\n%s", w.out)
	}
}

// killServe kills every `leasegate serve` process of the workspace dir,
// such as one a sidecar started.
func killServe(t *testing.T, dir string) {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		args := strings.Split(string(b), "\x00")
		if err != nil || len(args) < 2 || args[0] != bin || args[1] != "serve" || !strings.Contains(string(b), dir) {
			continue
		}
		var pid int
		if _, err := fmt.Sscanf(p, "/proc/%d/cmdline", &pid); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
