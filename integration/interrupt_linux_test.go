package integration_test

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// pythonWith finds the python3 process whose command line holds marker.
func pythonWith(t *testing.T, marker string) int {
	t.Helper()
	var pid int
	eventually(t, 10*time.Second, "the python3 writer", func() bool {
		for _, p := range processesWith(marker) {
			if comm, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/comm"); string(comm) == "python3\n" {
				pid = p
				return true
			}
		}
		return false
	})
	return pid
}

// TestInterruptCancelsHeldWrite: a signal that would interrupt the held
// write natively ends its wait at once — SIGINT caught by Python (Ctrl-C:
// the open fails with EINTR and Python raises KeyboardInterrupt), SIGTERM
// with its default action (the process ends) — the contention is withdrawn
// and recorded, and the writer takes no lease. A signal whose default is
// to be ignored (SIGWINCH) does not end the wait. Under each gate.
func TestInterruptCancelsHeldWrite(t *testing.T) {
	cases := []struct {
		name   string
		sig    syscall.Signal
		expect string // in the writer's output
		why    string // in the withdrawal's reason
	}{
		{"caught SIGINT", syscall.SIGINT, "KeyboardInterrupt", "interrupted by signal 2"},
		{"fatal SIGTERM", syscall.SIGTERM, "rc=143", "ended"},
	}
	for _, g := range gates(t) {
		for _, tc := range cases {
			t.Run(g+"/"+tc.name, func(t *testing.T) {
				interruptCancelsHeldWrite(t, g, tc.sig, tc.expect, tc.why)
			})
		}
	}
}

// interruptCancelsHeldWrite is one case of TestInterruptCancelsHeldWrite,
// under gate g.
func interruptCancelsHeldWrite(t *testing.T, g string, sig syscall.Signal, expect, why string) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	r.mustLG("acquire", "--as", "holder", "a.txt")
	marker := "interrupt-" + g + "-" + strconv.Itoa(int(sig))
	w := r.runWith("writer", `python3 -c "open('a.txt','a').write('w')" `+marker+`; echo rc=$?`, "--retry-after", longRetry, "--gate", g)
	eventually(t, 10*time.Second, "the writer's contention", func() bool { return len(r.status().Contentions) == 1 })
	py := pythonWith(t, marker)
	if err := syscall.Kill(py, syscall.SIGWINCH); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // five validity polls: a SIGWINCH must not have ended the wait
	if cs := r.status().Contentions; len(cs) != 1 || cs[0].Outcome != leasegate.Contended {
		t.Fatalf("after SIGWINCH the contention is %+v, want it still waiting", cs)
	}
	sent := time.Now()
	if err := syscall.Kill(py, sig); err != nil {
		t.Fatal(err)
	}
	if code := w.wait(t, 20*time.Second); code != 0 {
		t.Fatalf("writer exit %d:\n%s", code, w.out)
	}
	t.Logf("the wait ended %s after the signal", time.Since(sent).Round(time.Millisecond))
	if !strings.Contains(w.out.String(), expect) {
		t.Fatalf("writer output lacks %q:\n%s", expect, w.out)
	}
	if got := r.read("a.txt"); got != "a\n" {
		t.Fatalf("a.txt = %q: the interrupted write happened", got)
	}
	var withdrawn *gate.Event
	for _, e := range r.history("a.txt") {
		switch {
		case e.Type == gate.EventContentionGone && e.Actor == "writer":
			withdrawn = &e
		case e.Type == gate.EventGranted && e.Lease.Owner.Name == "writer":
			t.Fatalf("the writer was granted a.txt for a write that never happened: %+v", e)
		case e.Type == gate.EventRetry || e.Type == gate.EventBlockerOpened:
			t.Fatalf("%s in the history: the interrupted write still waited for its retry", e.Type)
		}
	}
	if withdrawn == nil {
		t.Fatalf("no contention.withdrawn of the writer in the history of a.txt; writer output:\n%s", w.out)
	}
	if !strings.Contains(withdrawn.Reason, why) {
		t.Fatalf("withdrawn because %q, want %q", withdrawn.Reason, why)
	}
	if h := r.holders()["a.txt"]; h != "holder" {
		t.Fatalf("a.txt held by %q, want the holder still", h)
	}
}

// TestInterruptHaltedWrite: Ctrl-C (SIGINT, caught by Python) of a worker
// halted on a blocker ends the held write with EINTR, resumes the worker,
// and closes the blocker as withdrawn: nothing is left for an operator and
// status no longer shows the worker halted. Under each gate.
func TestInterruptHaltedWrite(t *testing.T) {
	for _, g := range gates(t) {
		t.Run(g, func(t *testing.T) { interruptHaltedWrite(t, g) })
	}
}

func interruptHaltedWrite(t *testing.T, g string) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	r.mustLG("acquire", "--as", "holder", "a.txt")
	marker := "interrupt-halted-" + g
	w := r.runWith("writer", `python3 -c "open('a.txt','a').write('w')" `+marker+`; echo rc=$?`, "--retry-after", "1s", "--gate", g)
	id := waitBlockerFor(t, r, "writer", 20*time.Second)
	if err := syscall.Kill(pythonWith(t, marker), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := w.wait(t, 20*time.Second); code != 0 || !strings.Contains(w.out.String(), "KeyboardInterrupt") {
		t.Fatalf("writer exit %d, want KeyboardInterrupt:\n%s", code, w.out)
	}
	if rep := mustBlocker(t, r, id); rep.Status != blocker.StatusWithdrawn || rep.Resolution == nil || !strings.Contains(rep.Resolution.Note, "interrupted by signal 2") {
		t.Fatalf("blocker %s is %s (%+v), want withdrawn because of the interrupt", id, rep.Status, rep.Resolution)
	}
	if n := len(r.openBlockers()); n != 0 {
		t.Fatalf("%d open blockers after the interrupt, want 0", n)
	}
	if got := r.read("a.txt"); got != "a\n" {
		t.Fatalf("a.txt = %q: the interrupted write happened", got)
	}
}
