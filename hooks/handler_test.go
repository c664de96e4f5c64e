package hooks_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/hooks"
	"github.com/leasegate/leasegate/workspace"
)

// fakeCoordinator answers Gate with gateFn and records registrations.
type fakeCoordinator struct {
	mu         sync.Mutex
	gateFn     func(ctx context.Context, req leasegate.MutateRequest, obs api.Observer) (leasegate.Result, error)
	registered []gate.Owner
	ttls       []time.Duration // the heartbeat TTL of each registration
	joins      []bool          // whether each registration asked to join (JoinRoot)
	joinAs     string          // the owner a registration that asks to join is answered with; "" for its own
	gates      []leasegate.MutateRequest
	ended      []string
}

var _ hooks.Coordinator = (*fakeCoordinator)(nil)

func (f *fakeCoordinator) Gate(ctx context.Context, req leasegate.MutateRequest, obs api.Observer) (leasegate.Result, error) {
	f.mu.Lock()
	f.gates = append(f.gates, req)
	f.mu.Unlock()
	return f.gateFn(ctx, req, obs)
}

func (f *fakeCoordinator) Join(_ context.Context, r leasegate.Registration) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.registered = append(f.registered, r.Owner)
	f.ttls = append(f.ttls, r.HeartbeatTTL)
	f.joins = append(f.joins, r.JoinRoot)
	if r.JoinRoot && f.joinAs != "" {
		return f.joinAs, nil
	}
	return r.Name, nil
}

func (f *fakeCoordinator) Heartbeat(context.Context, string) (leasegate.Beat, error) {
	return leasegate.Beat{}, nil
}
func (f *fakeCoordinator) Activity(context.Context, string) error { return nil }
func (f *fakeCoordinator) Stop(context.Context, string, string) (time.Time, error) {
	return time.Time{}, nil
}
func (f *fakeCoordinator) End(_ context.Context, name, _ string) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ended = append(f.ended, name)
	return 0, nil
}
func (f *fakeCoordinator) ReleaseCommitted(context.Context, string) ([]gate.Lease, error) {
	return nil, nil
}
func (f *fakeCoordinator) ReportUngated(context.Context, leasegate.UngatedWrite) error {
	return nil
}
func (f *fakeCoordinator) Leases(context.Context, string) ([]gate.Lease, error) { return nil, nil }
func (f *fakeCoordinator) Status(context.Context) (leasegate.Status, error) {
	return leasegate.Status{}, nil
}
func (f *fakeCoordinator) Blockers(context.Context, bool) ([]blocker.Report, error) { return nil, nil }
func (f *fakeCoordinator) Blocker(context.Context, string) (blocker.Report, error) {
	return blocker.Report{}, &gate.DeniedError{Reason: gate.ReasonNotFound}
}
func (f *fakeCoordinator) Close() {}

func newHandler(t *testing.T, f *fakeCoordinator, mod func(*hooks.Config)) *hooks.Handler {
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

func TestWriteDeniesOnceTheCoordinatorStaysUnreachable(t *testing.T) {
	r := newRepo(t)
	mock := clock.NewMock()
	attempts := 0
	f := &fakeCoordinator{gateFn: func(ctx context.Context, _ leasegate.MutateRequest, obs api.Observer) (leasegate.Result, error) {
		// What api.Client.Gate does while the coordinator is down: report
		// each failed attempt and try again until ctx ends.
		for ctx.Err() == nil {
			attempts++
			obs.Unavailable(api.ErrUnavailable, attempts)
			mock.Add(5 * time.Second)
		}
		return leasegate.Result{}, ctx.Err()
	}}
	h := newHandler(t, f, func(c *hooks.Config) { c.Clock = mock })
	d := h.Handle(context.Background(), writeEvent(r))
	if d.Verdict != hooks.Deny || !d.Halt || !strings.Contains(d.Reason, "coordinator unreachable for 15s") {
		t.Errorf("Handle() = %+v, want a halting denial naming the 15s budget", d)
	}
	if attempts != 4 {
		t.Errorf("Gate tried %d times, want 4 (0s, 5s, 10s, 15s)", attempts)
	}
}

// TestWriteDeniesWhenTheCoordinatorDoesNotAnswer checks that a coordinator
// that accepts the connection but never answers (a stopped process) is
// denied as unreachable after Config.Unreachable, not after the whole
// hook timeout.
func TestWriteDeniesWhenTheCoordinatorDoesNotAnswer(t *testing.T) {
	r := newRepo(t)
	mock := clock.NewMock()
	asked := make(chan struct{})
	f := &fakeCoordinator{gateFn: func(ctx context.Context, _ leasegate.MutateRequest, _ api.Observer) (leasegate.Result, error) {
		close(asked)
		<-ctx.Done()
		return leasegate.Result{}, ctx.Err()
	}}
	h := newHandler(t, f, func(c *hooks.Config) { c.Clock = mock })
	decided := make(chan hooks.Decision)
	go func() { decided <- h.Handle(context.Background(), writeEvent(r)) }()
	<-asked
	mock.Add(hooks.DefaultUnreachable)
	d := <-decided
	if d.Verdict != hooks.Deny || !d.Halt || !strings.Contains(d.Reason, "coordinator unreachable for 15s: it accepts connections but does not answer") {
		t.Errorf("Handle() = %+v, want a halting denial saying the coordinator does not answer", d)
	}
}

func TestWriteRegistersTheSessionOnFirstUse(t *testing.T) {
	t.Setenv("LEASEGATE_AGENT_PROGRAM", hooks.ProcComm(os.Getppid())) // this test's parent plays the agent
	r := newRepo(t)
	f := &fakeCoordinator{}
	forgotten := false // the coordinator lost the owner (its ledger was reset)
	f.gateFn = func(context.Context, leasegate.MutateRequest, api.Observer) (leasegate.Result, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if forgotten {
			forgotten = false
			return leasegate.Result{}, &gate.DeniedError{Reason: gate.ReasonNotFound, Message: "no registered owner cc-S"}
		}
		return leasegate.Result{Outcome: leasegate.Granted}, nil
	}
	h := newHandler(t, f, nil)
	if d := h.Handle(context.Background(), writeEvent(r)); d.Verdict != hooks.Allow {
		t.Fatalf("Handle() = %+v, want Allow", d)
	}
	if len(f.registered) != 1 || f.registered[0].Name != "cc-S" || f.registered[0].PID <= 0 || f.registered[0].StartTime == 0 {
		t.Errorf("registered %+v, want cc-S with a pid and a start time", f.registered)
	}
	if len(f.gates) != 1 || f.gates[0].Owner != "cc-S" || f.gates[0].Op != "write" || strings.Join(f.gates[0].Paths, ",") != "src/app.go" {
		t.Errorf("gated %+v, want src/app.go written by cc-S", f.gates)
	}

	if d := h.Handle(context.Background(), writeEvent(r)); d.Verdict != hooks.Allow || len(f.registered) != 1 {
		t.Errorf("second Handle() = %+v after %d registrations, want Allow and no new registration", d, len(f.registered))
	}

	forgotten = true
	if d := h.Handle(context.Background(), writeEvent(r)); d.Verdict != hooks.Allow {
		t.Fatalf("Handle() after the coordinator forgot the owner = %+v, want Allow", d)
	}
	if len(f.registered) != 2 || len(f.gates) != 4 {
		t.Errorf("after the coordinator forgot the owner: %d registrations, %d gates; want it registered again and the write asked again", len(f.registered), len(f.gates))
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
	f := &fakeCoordinator{joinAs: "cc-pid-7", gateFn: func(context.Context, leasegate.MutateRequest, api.Observer) (leasegate.Result, error) {
		return leasegate.Result{Outcome: leasegate.Granted}, nil
	}}
	h := newHandler(t, f, nil)
	for range 2 {
		if d := h.Handle(context.Background(), writeEvent(r)); d.Verdict != hooks.Allow {
			t.Fatalf("Handle() = %+v, want Allow", d)
		}
	}
	if len(f.registered) != 1 || f.registered[0].Name != "cc-S" || !f.joins[0] {
		t.Errorf("registered %+v (join %v), want cc-S once, asking to join", f.registered, f.joins)
	}
	if len(f.gates) != 2 || f.gates[0].Owner != "cc-pid-7" || f.gates[1].Owner != "cc-pid-7" {
		t.Errorf("gated %+v, want both writes by cc-pid-7", f.gates)
	}
	end := hooks.Event{Agent: hooks.ClaudeCode, Name: "SessionEnd", Kind: hooks.KindSessionEnd, Session: "S", Cwd: r.root}
	h.Handle(context.Background(), end)
	if len(f.ended) != 1 || f.ended[0] != "cc-pid-7" {
		t.Errorf("ended %v at SessionEnd, want cc-pid-7", f.ended)
	}
	f.joinAs = ""
	if d := h.Handle(context.Background(), writeEvent(r)); d.Verdict != hooks.Allow || f.gates[2].Owner != "cc-S" {
		t.Errorf("a write after the session ended = %+v as %s, want cc-S registered and writing as itself", d, f.gates[2].Owner)
	}
}

func TestWriteAsExplicitOwnerDoesNotRegister(t *testing.T) {
	r := newRepo(t)
	f := &fakeCoordinator{gateFn: func(context.Context, leasegate.MutateRequest, api.Observer) (leasegate.Result, error) {
		return leasegate.Result{Outcome: leasegate.Granted}, nil
	}}
	h := newHandler(t, f, func(c *hooks.Config) { c.Owner = "alice" })
	if d := h.Handle(context.Background(), writeEvent(r)); d.Verdict != hooks.Allow {
		t.Fatalf("Handle() = %+v, want Allow", d)
	}
	if len(f.registered) != 0 || len(f.gates) != 1 || f.gates[0].Owner != "alice" {
		t.Errorf("registered %+v, gated %+v; want alice's write and no registration (her sidecar registered her)", f.registered, f.gates)
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
	f := &fakeCoordinator{}
	f.gateFn = func(context.Context, leasegate.MutateRequest, api.Observer) (leasegate.Result, error) {
		return leasegate.Result{Outcome: leasegate.Granted}, nil
	}
	h := newHandler(t, f, nil)
	if d := h.Handle(context.Background(), writeEvent(r)); d.Verdict != hooks.Allow {
		t.Fatalf("Handle() = %+v, want Allow", d)
	}
	if len(f.registered) != 1 || f.registered[0].PID != 0 || f.ttls[0] != hooks.HookHeartbeatTTL {
		t.Fatalf("registered %+v with ttls %v, want no pid and the %s hook heartbeat TTL", f.registered, f.ttls, hooks.HookHeartbeatTTL)
	}
}
