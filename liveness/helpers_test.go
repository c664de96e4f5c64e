package liveness_test

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
)

// now is the time the tests judge at.
var now = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// here is the host name the tests give the evaluator; owners on it with a
// pid are judged by their process.
const here = "host-a"

// MustEvaluator returns an evaluator for host here with the default
// config, changed by each edit.
func MustEvaluator(tb testing.TB, edits ...func(*liveness.Config)) *liveness.Evaluator {
	tb.Helper()
	cfg := liveness.DefaultConfig()
	cfg.Host = here
	for _, edit := range edits {
		edit(&cfg)
	}
	e, err := liveness.New(cfg)
	if err != nil {
		tb.Fatalf("New(%+v) = %v", cfg, err)
	}
	return e
}

// MustStart starts name args as a child of the test and kills and reaps it
// at cleanup (killing its process group when it has one of its own).
func MustStart(tb testing.TB, ownGroup bool, name string, args ...string) *exec.Cmd {
	tb.Helper()
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = groupAttr(ownGroup)
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start %s: %v", name, err)
	}
	tb.Cleanup(func() {
		if ownGroup {
			killGroup(cmd.Process.Pid)
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

// MustStartTree starts `sh` with two background sleeps, in its own
// process group, and returns once both children exist: sh prints "ready"
// after its two forks have returned.
func MustStartTree(tb testing.TB) *exec.Cmd {
	tb.Helper()
	cmd := exec.Command("sh", "-c", "sleep 30 & sleep 30 & echo ready; wait")
	cmd.SysProcAttr = groupAttr(true)
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatalf("stdout pipe: %v", err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start sh: %v", err)
	}
	tb.Cleanup(func() {
		killGroup(cmd.Process.Pid)
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ready" {
		tb.Fatalf("sh said %q, %v; want ready", line, err)
	}
	return cmd
}

// MustOwner returns an owner on host here for the live process pid, with
// its real start time.
func MustOwner(tb testing.TB, pid int) gate.Owner {
	tb.Helper()
	start, err := liveness.ProcessStart(pid)
	if err != nil {
		tb.Fatalf("ProcessStart(%d) = %v", pid, err)
	}
	return gate.Owner{Name: "alice", Host: here, PID: pid, StartTime: start}
}

// MustSignal sends sig to pid.
func MustSignal(tb testing.TB, pid int, sig syscall.Signal) {
	tb.Helper()
	p, _ := os.FindProcess(pid) // cannot fail on Unix
	if err := p.Signal(sig); err != nil {
		tb.Fatalf("kill -%d %d: %v", sig, pid, err)
	}
}

// Eventually polls cond until it holds or 10 s pass. It is for states the
// kernel reaches in another process's own time (a grandchild handling
// SIGSTOP), which no syscall lets a test await; it never measures the code
// under test's timing.
func Eventually(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("%s: still false after 10s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func hasEvidence(v gate.Liveness, substr string) bool {
	for _, e := range v.Evidence {
		if strings.Contains(e, substr) {
			return true
		}
	}
	return false
}
