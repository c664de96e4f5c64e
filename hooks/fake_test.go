package hooks_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/hooks"
)

// fakeCoordinator answers each step of the contention protocol (Mutate,
// WaitContention, WaitBlocker) from a script, as the sidecar's fake does,
// and records registrations, withdrawals and ends. The hooks run the real
// protocol (api.Gate) over it.
type fakeCoordinator struct {
	mu        sync.Mutex
	mutates   []answer // answers to Mutate, in order; the last one repeats
	waits     []answer // answers to WaitContention
	blocks    []answer // answers to WaitBlocker
	asked     []leasegate.MutateRequest
	calls     map[string]int
	withdrawn []string

	registered []gate.Owner
	ttls       []time.Duration // the heartbeat TTL of each registration
	joins      []bool          // whether each registration asked to join (JoinRoot)
	joinAs     string          // the owner a registration that asks to join is answered with; "" for its own
	ended      []string
}

// answer is one scripted reply to a step.
type answer struct {
	r   leasegate.Result
	err error
	// hang makes the step wait for its caller to give up (a coordinator
	// that accepts the request and never answers) and return ctx's error.
	hang bool
}

var _ hooks.Coordinator = (*fakeCoordinator)(nil)

// script is a coordinator whose Mutate answers with mutates.
func script(mutates ...answer) *fakeCoordinator {
	return &fakeCoordinator{mutates: mutates}
}

// step records a call of the step named call and pops its next answer,
// repeating the last one. An unscripted step panics: the protocol took a
// turn the test did not expect.
func (f *fakeCoordinator) step(ctx context.Context, call string, script *[]answer) (leasegate.Result, error) {
	f.mu.Lock()
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[call]++
	if len(*script) == 0 {
		f.mu.Unlock()
		panic(call + " called with no answer scripted")
	}
	a := (*script)[0]
	if len(*script) > 1 {
		*script = (*script)[1:]
	}
	f.mu.Unlock()
	if a.hang {
		<-ctx.Done()
		return leasegate.Result{}, ctx.Err()
	}
	return a.r, a.err
}

func (f *fakeCoordinator) count(call string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[call]
}

func (f *fakeCoordinator) Mutate(ctx context.Context, req leasegate.MutateRequest) (leasegate.Result, error) {
	f.mu.Lock()
	f.asked = append(f.asked, req)
	f.mu.Unlock()
	return f.step(ctx, "Mutate", &f.mutates)
}

func (f *fakeCoordinator) WaitContention(ctx context.Context, _ string) (leasegate.Result, error) {
	return f.step(ctx, "WaitContention", &f.waits)
}

func (f *fakeCoordinator) WaitBlocker(ctx context.Context, _ string) (leasegate.Result, error) {
	return f.step(ctx, "WaitBlocker", &f.blocks)
}

func (f *fakeCoordinator) Withdraw(_ context.Context, id, _ string) (leasegate.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.withdrawn = append(f.withdrawn, id)
	return leasegate.Result{Outcome: leasegate.Withdrawn}, nil
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

// leaseOn is an active auto lease of owner on path.
func leaseOn(owner, path string) gate.Lease {
	return gate.Lease{ID: gate.LeaseID("L-" + path), Owner: gate.Owner{Name: owner}, Kind: gate.KindAuto, State: gate.StateActive,
		Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{path}}}
}

func granted(owner, path string) answer {
	return answer{r: leasegate.Result{Outcome: leasegate.Granted, Leases: []gate.Lease{leaseOn(owner, path)}}}
}

func contended(path string) answer {
	return answer{r: leasegate.Result{Outcome: leasegate.Contended, Contention: &leasegate.ContentionView{
		ID: "C1", Requester: "cc-S", Paths: []string{path}, Holder: leaseOn("bob", path)}}}
}

func blockedAt(path string) answer {
	c := contended(path).r.Contention
	rep := blocker.Report{ID: "B1", Path: path, Paths: []string{path}, Status: blocker.StatusOpen, RetryInterval: 3 * time.Minute}
	rep.Holder.Owner, rep.Holder.LeaseID = gate.Owner{Name: "bob"}, "L-"+gate.LeaseID(path)
	return answer{r: leasegate.Result{Outcome: leasegate.Blocked, Contention: c, Blocker: &rep}}
}

func refusedWith(reason gate.Reason, msg string) answer {
	return answer{err: &gate.DeniedError{Reason: reason, Message: msg}}
}

func unavailableAnswer() answer {
	return answer{err: fmt.Errorf("%w at test.sock: connection refused", api.ErrUnavailable)}
}

var hang = answer{hang: true}
