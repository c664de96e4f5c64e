package hooks_test

import (
	"os"
	"testing"

	"github.com/leasegate/leasegate/hooks"
	"github.com/leasegate/leasegate/liveness"
	"github.com/leasegate/leasegate/workspace"
)

// TestAgentStartTimeIsCachedPerProcess checks that a session looks up its
// agent's start time once, and then takes it from its cache while the
// agent process is the same.
func TestAgentStartTimeIsCachedPerProcess(t *testing.T) {
	t.Setenv("LEASEGATE_AGENT_PROGRAM", hooks.ProcComm(os.Getppid())) // this test's parent plays the agent
	r := newRepo(t)
	ws, err := workspace.Find(r.root)
	if err != nil {
		t.Fatal(err)
	}
	want, err := liveness.ProcessStart(hooks.AgentPID())
	if err != nil {
		t.Fatal(err)
	}
	if got := hooks.AgentStartTime(ws, "cc-s"); got != want {
		t.Fatalf("first lookup: start %d, want %d", got, want)
	}
	if err := hooks.SetCachedAgentStart(ws, "cc-s", 42); err != nil {
		t.Fatal(err)
	}
	if got := hooks.AgentStartTime(ws, "cc-s"); got != 42 {
		t.Errorf("second lookup: start %d, want the cached 42", got)
	}
	if got := hooks.AgentStartTime(ws, "cc-other"); got != want {
		t.Errorf("another session: start %d, want %d", got, want)
	}
}
