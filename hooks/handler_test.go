package hooks_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/hooks"
	"github.com/leasegate/leasegate/internal/servicetest"
	"github.com/leasegate/leasegate/workspace"
)

func newHandler(t *testing.T, f fakeCoordinator, mod func(*hooks.Config)) *hooks.Handler {
	t.Helper()
	cfg := hooks.DefaultConfig()
	cfg.Connect = func(context.Context, *workspace.Workspace, bool) (hooks.Coordinator, error) { return f, nil }
	if mod != nil {
		mod(&cfg)
	}
	h, err := hooks.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func writeEvent(r *repo) hooks.Event {
	return hooks.Event{Agent: hooks.ClaudeCode, Name: "PreToolUse", Kind: hooks.KindWrite, Session: "S", Cwd: r.root,
		Tool: "Write", Op: "write", Paths: []string{r.root + "/src/app.go"}}
}

// TestWriteDeniesOnceTheCoordinatorStaysUnreachable: while the
// coordinator refuses connections the write waits and asks again (the
// protocol's backoff), and once it has stayed unreachable for
// Config.Unreachable the write is denied and the session halted: not
// allowed, and not after the whole hook timeout.
func TestWriteDeniesOnceTheCoordinatorStaysUnreachable(t *testing.T) {
	r := newRepo(t)
	synctest.Test(t, func(t *testing.T) {
		f := script(servicetest.Unavailable())
		h := newHandler(t, f, nil)
		start := time.Now()
		d := h.Handle(context.Background(), writeEvent(r))
		if d.Verdict != hooks.Deny || !d.Halt || !strings.Contains(d.Reason, "coordinator unreachable for 15s") {
			t.Errorf("Handle() = %+v, want a halting denial naming the 15s budget", d)
		}
		// The last attempt is at most one backoff (5 s) past the budget.
		if took := time.Since(start); took < hooks.DefaultUnreachable || took > hooks.DefaultUnreachable+5*time.Second {
			t.Errorf("denied after %s, want within 5s after the %s budget", took, hooks.DefaultUnreachable)
		}
		if n := f.Count("Mutate"); n < 4 {
			t.Errorf("Mutate asked %d times, want it asked again and again until the budget ran out", n)
		}
	})
}

// TestWriteDeniesWhenTheCoordinatorDoesNotAnswer checks that a coordinator
// that accepts the connection but never answers (a stopped process) is
// denied as unreachable after Config.Unreachable, not after the whole
// hook timeout.
func TestWriteDeniesWhenTheCoordinatorDoesNotAnswer(t *testing.T) {
	r := newRepo(t)
	synctest.Test(t, func(t *testing.T) {
		h := newHandler(t, script(servicetest.Hang), nil)
		start := time.Now()
		d := h.Handle(context.Background(), writeEvent(r))
		if d.Verdict != hooks.Deny || !d.Halt || !strings.Contains(d.Reason, "coordinator unreachable for 15s: it accepts connections but does not answer") {
			t.Errorf("Handle() = %+v, want a halting denial saying the coordinator does not answer", d)
		}
		if took := time.Since(start); took != hooks.DefaultUnreachable {
			t.Errorf("denied after %s, want after %s", took, hooks.DefaultUnreachable)
		}
	})
}

func TestWriteRegistersTheSessionOnFirstUse(t *testing.T) {
	t.Setenv("LEASEGATE_AGENT_PROGRAM", hooks.ProcComm(os.Getppid())) // this test's parent plays the agent
	r := newRepo(t)
	f := script(servicetest.Granted("cc-S", "src/app.go"))
	h := newHandler(t, f, nil)
	if d := h.Handle(context.Background(), writeEvent(r)); d.Verdict != hooks.Allow {
		t.Fatalf("Handle() = %+v, want Allow", d)
	}
	if len(f.Joined) != 1 || f.Joined[0].Name != "cc-S" || f.Joined[0].PID <= 0 || f.Joined[0].StartTime == 0 {
		t.Errorf("registered %+v, want cc-S with a pid and a start time", f.Joined)
	}
	if len(f.Asked) != 1 || f.Asked[0].Owner != "cc-S" || f.Asked[0].Op != "write" || strings.Join(f.Asked[0].Paths, ",") != "src/app.go" {
		t.Errorf("gated %+v, want src/app.go written by cc-S", f.Asked)
	}

	if d := h.Handle(context.Background(), writeEvent(r)); d.Verdict != hooks.Allow || len(f.Joined) != 1 {
		t.Errorf("second Handle() = %+v after %d registrations, want Allow and no new registration", d, len(f.Joined))
	}

	// The coordinator lost the owner (its ledger was reset).
	f.Mutates = []servicetest.Answer{servicetest.Refused(gate.ReasonNotFound, "no registered owner cc-S"), servicetest.Granted("cc-S", "src/app.go")}
	if d := h.Handle(context.Background(), writeEvent(r)); d.Verdict != hooks.Allow {
		t.Fatalf("Handle() after the coordinator forgot the owner = %+v, want Allow", d)
	}
	if len(f.Joined) != 2 || len(f.Asked) != 4 {
		t.Errorf("after the coordinator forgot the owner: %d registrations, %d gates; want it registered again and the write asked again", len(f.Joined), len(f.Asked))
	}
}

// TestWriteActsAsTheOwnerItJoined: a session whose registration the
// coordinator answers with another owner (the one the agent's MCP server
// registered for the same agent process) writes as that owner from then
// on, without registering again, and its end ends that owner; once the
// coordinator answers with the session's own name, it is itself again.
func TestWriteActsAsTheOwnerItJoined(t *testing.T) {
	t.Setenv("LEASEGATE_AGENT_PROGRAM", hooks.ProcComm(os.Getppid())) // this test's parent plays the agent
	r := newRepo(t)
	f := script(servicetest.Granted("cc-pid-7", "src/app.go"))
	f.JoinAs = "cc-pid-7"
	h := newHandler(t, f, nil)
	for range 2 {
		if d := h.Handle(context.Background(), writeEvent(r)); d.Verdict != hooks.Allow {
			t.Fatalf("Handle() = %+v, want Allow", d)
		}
	}
	if len(f.Joined) != 1 || f.Joined[0].Name != "cc-S" || !f.Joined[0].JoinRoot {
		t.Errorf("registered %+v, want cc-S once, asking to join", f.Joined)
	}
	if len(f.Asked) != 2 || f.Asked[0].Owner != "cc-pid-7" || f.Asked[1].Owner != "cc-pid-7" {
		t.Errorf("gated %+v, want both writes by cc-pid-7", f.Asked)
	}
	end := hooks.Event{Agent: hooks.ClaudeCode, Name: "SessionEnd", Kind: hooks.KindSessionEnd, Session: "S", Cwd: r.root}
	h.Handle(context.Background(), end)
	if len(f.Ended) != 1 || f.Ended[0] != "cc-pid-7" {
		t.Errorf("ended %v at SessionEnd, want cc-pid-7", f.Ended)
	}
	f.JoinAs = ""
	if d := h.Handle(context.Background(), writeEvent(r)); d.Verdict != hooks.Allow || f.Asked[2].Owner != "cc-S" {
		t.Errorf("a write after the session ended = %+v as %s, want cc-S registered and writing as itself", d, f.Asked[2].Owner)
	}
}

func TestWriteAsExplicitOwnerDoesNotRegister(t *testing.T) {
	r := newRepo(t)
	f := script(servicetest.Granted("alice", "src/app.go"))
	h := newHandler(t, f, func(c *hooks.Config) { c.Owner = "alice" })
	if d := h.Handle(context.Background(), writeEvent(r)); d.Verdict != hooks.Allow {
		t.Fatalf("Handle() = %+v, want Allow", d)
	}
	if len(f.Joined) != 0 || len(f.Asked) != 1 || f.Asked[0].Owner != "alice" {
		t.Errorf("registered %+v, gated %+v; want alice's write and no registration (her sidecar registered her)", f.Joined, f.Asked)
	}
}

func TestNewRejectsConfigWithoutConnect(t *testing.T) {
	if _, err := hooks.New(hooks.DefaultConfig()); !errors.Is(err, hooks.ErrInvalidConfig) {
		t.Errorf("New(no Connect) error = %v, want ErrInvalidConfig", err)
	}
}

// TestWriteWithoutAgentProcess: a hook whose agent process is not among
// its ancestors (an unknown agent, a wrapper chain it cannot see through)
// registers no pid: the coordinator judges the session by its hook calls
// as heartbeats, with a TTL long enough for an agent's pauses, instead of
// taking some other process for the agent.
func TestWriteWithoutAgentProcess(t *testing.T) {
	r := newRepo(t)
	f := script(servicetest.Granted("cc-S", "src/app.go"))
	h := newHandler(t, f, nil)
	if d := h.Handle(context.Background(), writeEvent(r)); d.Verdict != hooks.Allow {
		t.Fatalf("Handle() = %+v, want Allow", d)
	}
	if len(f.Joined) != 1 || f.Joined[0].PID != 0 || f.Joined[0].HeartbeatTTL != hooks.HookHeartbeatTTL {
		t.Fatalf("registered %+v, want no pid and the %s hook heartbeat TTL", f.Joined, hooks.HookHeartbeatTTL)
	}
}
