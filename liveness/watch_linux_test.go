package liveness_test

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
)

// TestIdentifyPeerAndAncestor: the owner's process is the peer itself or
// the ancestor whose pid it reported.
func TestIdentifyPeerAndAncestor(t *testing.T) {
	self := os.Getpid()
	start, err := liveness.ProcessStart(self)
	if err != nil {
		t.Fatal(err)
	}
	child := MustStart(t, false, "sleep", "30").Process.Pid
	for _, peer := range []int{self, child} {
		got, err := liveness.Identify(peer, self, start)
		if err != nil || got.PID != self || got.StartTime != start {
			t.Fatalf("Identify(peer %d, reported %d) = %+v, %v; want pid %d", peer, self, got, err, self)
		}
	}
	if _, err := liveness.Identify(self, child, 0); err == nil {
		t.Fatalf("Identify(peer %d, reported child %d) found the child, which is not an ancestor", self, child)
	}
	if _, err := liveness.Identify(child, self, start-time.Hour.Milliseconds()); err == nil {
		t.Fatal("Identify took a process with another start time for the owner")
	}
}

// TestIdentifyInPidNamespace: a peer in its own pid namespace reports pids
// of that namespace; Identify finds the process as this namespace sees it.
func TestIdentifyInPidNamespace(t *testing.T) {
	cmd := exec.Command("unshare", "--pid", "--fork", "sh", "-c", "sleep 30; true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Skipf("unshare: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	var sh, sleep int
	deadline := time.Now().Add(10 * time.Second)
	for sleep == 0 && time.Now().Before(deadline) {
		sh, sleep = childOf(cmd.Process.Pid), 0
		if sh != 0 {
			sleep = childOf(sh)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if sleep == 0 {
		t.Skip("unshare --pid did not start its namespace (not root?)")
	}
	got, err := liveness.Identify(sleep, 1, 0)
	if err != nil || got.PID != sh {
		t.Fatalf("Identify(peer %d, reported 1) = %+v, %v; want the namespace's init, pid %d here", sleep, got, err, sh)
	}
}

// childOf returns a child of pid, or 0.
func childOf(pid int) int {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children")
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(f[0])
	return n
}

// TestWatchSeesExit: a watched process's exit is reported at once, and
// the verdict names the pidfd, whatever the heartbeat says.
func TestWatchSeesExit(t *testing.T) {
	cmd := MustStart(t, false, "sleep", "30")
	pid := cmd.Process.Pid
	start, _ := liveness.ProcessStart(pid)
	exited := make(chan struct{}, 1)
	w, err := liveness.Watch(liveness.ProcID{PID: pid, StartTime: start}, func() { exited <- struct{}{} })
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if !w.HasPidfd() {
		t.Skip("no pidfd on this kernel")
	}
	e := MustEvaluator(t)
	subj := liveness.Subject{Owner: gate.Owner{Name: "o", Host: here, PID: 1, StartTime: start}, LastHeartbeat: now, Process: w}
	if v := e.Evaluate(subj, now); v.Status != gate.Alive || !hasEvidence(v, "pidfd: pid "+strconv.Itoa(pid)+" (registered as pid 1") {
		t.Fatalf("Evaluate(live watched) = %+v, want alive by pidfd noting the registered pid", v)
	}
	MustSignal(t, pid, syscall.SIGSTOP)
	Eventually(t, "a stopped verdict by pidfd", func() bool {
		v := e.Evaluate(subj, now)
		return v.Status == gate.Stopped && hasEvidence(v, "pidfd:")
	})
	MustSignal(t, pid, syscall.SIGKILL)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("no exit reported 10 s after SIGKILL")
	}
	if v := e.Evaluate(subj, now); v.Status != gate.Dead || !hasEvidence(v, "pidfd: pid "+strconv.Itoa(pid)) {
		t.Fatalf("Evaluate(exited watched, fresh heartbeat) = %+v, want dead by pidfd", v)
	}
}

// TestNotFoundWithFreshHeartbeat: "pid not found" is not death for an
// owner whose heartbeat is within the TTL; an unseen owner is judged by
// heartbeat.
func TestNotFoundWithFreshHeartbeat(t *testing.T) {
	cmd := MustStart(t, false, "sleep", "30")
	owner := MustOwner(t, cmd.Process.Pid)
	MustSignal(t, cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
	e := MustEvaluator(t)
	if v := e.Evaluate(liveness.Subject{Owner: owner, LastHeartbeat: now.Add(-time.Second)}, now); v.Status != gate.Unknown {
		t.Fatalf("Evaluate(pid not found, heartbeat 1 s old) = %+v, want unknown", v)
	}
	if v := e.Evaluate(liveness.Subject{Owner: owner, LastHeartbeat: now.Add(-time.Minute)}, now); v.Status != gate.Dead {
		t.Fatalf("Evaluate(pid not found, heartbeat 1 min old) = %+v, want dead", v)
	}
	unseen := liveness.Subject{Owner: owner, LastHeartbeat: now.Add(-time.Second), Unseen: "pid 0 from SO_PEERCRED: judged by heartbeat"}
	if v := e.Evaluate(unseen, now); v.Status != gate.Alive || !hasEvidence(v, "SO_PEERCRED") {
		t.Fatalf("Evaluate(unseen, fresh heartbeat) = %+v, want alive by heartbeat", v)
	}
}

// TestUnwatchedByPIDAndStart: an identified process held without a pidfd
// is judged by its pid and create time, and the evidence says so.
func TestUnwatchedByPIDAndStart(t *testing.T) {
	cmd := MustStart(t, false, "sleep", "30")
	pid := cmd.Process.Pid
	start, _ := liveness.ProcessStart(pid)
	subj := liveness.Subject{Owner: gate.Owner{Name: "o", Host: here, PID: 1, StartTime: start},
		Process: liveness.Unwatched(liveness.ProcID{PID: pid, StartTime: start})}
	e := MustEvaluator(t)
	if v := e.Evaluate(subj, now); v.Status != gate.Alive || !hasEvidence(v, "pid + start time: pid "+strconv.Itoa(pid)) ||
		!hasEvidence(v, "registered as pid 1") {
		t.Fatalf("Evaluate(unwatched live) = %+v, want alive by pid + start time, noting the registered pid", v)
	}
	MustSignal(t, pid, syscall.SIGKILL)
	_ = cmd.Wait()
	if v := e.Evaluate(subj, now); v.Status != gate.Dead {
		t.Fatalf("Evaluate(unwatched killed, no heartbeat) = %+v, want dead", v)
	}
}
