package liveness_test

import (
	"errors"
	"os"
	"testing"

	"github.com/leasegate/leasegate/internal/childtest"
	"github.com/leasegate/leasegate/liveness"
)

// TestAncestryOfAChild: a child's ancestry is the child, this process,
// its parent and on up to a process without a visible parent, each with
// the create time ProcessStart gives.
func TestAncestryOfAChild(t *testing.T) {
	cmd := childtest.Start(t)
	chain, err := liveness.Ancestry(cmd.Process.Pid)
	if err != nil {
		t.Fatalf("Ancestry(%d) = %v", cmd.Process.Pid, err)
	}
	if len(chain) < 3 || chain[0].PID != cmd.Process.Pid || chain[1].PID != os.Getpid() || chain[2].PID != os.Getppid() {
		t.Fatalf("Ancestry(child) = %v, want the child, pid %d, pid %d, ...", chain, os.Getpid(), os.Getppid())
	}
	for _, p := range chain[:2] {
		if start, err := liveness.ProcessStart(p.PID); err != nil || start != p.StartTime {
			t.Errorf("pid %d: start %d in the chain, ProcessStart = %d, %v", p.PID, p.StartTime, start, err)
		}
	}
}

// TestAncestryOfNoProcess: a pid no process has is ErrProcessNotFound.
func TestAncestryOfNoProcess(t *testing.T) {
	pid := childtest.Reaped(t)
	if _, err := liveness.Ancestry(pid); !errors.Is(err, liveness.ErrProcessNotFound) {
		t.Fatalf("Ancestry of reaped pid %d = %v, want ErrProcessNotFound", pid, err)
	}
}
