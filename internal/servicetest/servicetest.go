// Package servicetest is a scripted leasegate.Service for the unit tests
// of the contention protocol's clients (the sidecar, the hooks): each
// step of the protocol answers from a script, and what the client asked
// and registered is recorded. The clients run the real protocol
// (api.Gate) over it.
package servicetest

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// Answer is one scripted reply to a step.
type Answer struct {
	Result leasegate.Result
	Err    error
	// Hang makes the step wait for its caller to give up (a coordinator
	// that took the request and never answers) and return ctx's error.
	Hang bool
}

// Script answers Mutate, WaitContention and WaitBlocker from its scripts,
// in order, the last answer of each repeating; an unscripted step panics,
// since the protocol took a turn the test did not expect. It embeds a nil
// leasegate.Service, so a call it does not script panics too. Set the
// exported fields before the client runs or between its calls; read the
// records the same way.
type Script struct {
	leasegate.Service

	mu sync.Mutex
	// Mutates, Waits and Blocks answer Mutate, WaitContention and
	// WaitBlocker.
	Mutates, Waits, Blocks []Answer
	// Beat answers every Heartbeat.
	Beat leasegate.Beat
	// JoinAs is the owner a registration that asks to join (JoinRoot) is
	// answered with; "" answers with the registrant's own name.
	JoinAs string
	// InWaitBlocker, when set, is called by each WaitBlocker before it
	// answers: a test's look at the client while the write is held.
	InWaitBlocker func()
	// InWaitContention, when set, is called by each WaitContention before
	// it answers: what the holder does while the write waits.
	InWaitContention func()

	// Asked are the mutations asked, Joined the registrations, Withdrawn
	// the contentions withdrawn and Ended the owners ended, in order.
	Asked     []leasegate.MutateRequest
	Joined    []leasegate.Registration
	Withdrawn []string
	Ended     []string
	calls     map[string]int
}

// New is a Script whose Mutate answers with mutates.
func New(mutates ...Answer) *Script {
	return &Script{Mutates: mutates, calls: map[string]int{}}
}

// step records a call of the step named call and pops its next answer.
func (s *Script) step(ctx context.Context, call string, script *[]Answer) (leasegate.Result, error) {
	s.mu.Lock()
	s.calls[call]++
	if len(*script) == 0 {
		s.mu.Unlock()
		panic(call + " called with no answer scripted")
	}
	a := (*script)[0]
	if len(*script) > 1 {
		*script = (*script)[1:]
	}
	s.mu.Unlock()
	if a.Hang {
		<-ctx.Done()
		return leasegate.Result{}, ctx.Err()
	}
	return a.Result, a.Err
}

// Count is how many times the step named call (or Heartbeat) was called.
func (s *Script) Count(call string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[call]
}

func (s *Script) Mutate(ctx context.Context, req leasegate.MutateRequest) (leasegate.Result, error) {
	s.mu.Lock()
	s.Asked = append(s.Asked, req)
	s.mu.Unlock()
	return s.step(ctx, "Mutate", &s.Mutates)
}

func (s *Script) WaitContention(ctx context.Context, _ string) (leasegate.Result, error) {
	if s.InWaitContention != nil {
		s.InWaitContention()
	}
	return s.step(ctx, "WaitContention", &s.Waits)
}

func (s *Script) WaitBlocker(ctx context.Context, _ string) (leasegate.Result, error) {
	if s.InWaitBlocker != nil {
		s.InWaitBlocker()
	}
	return s.step(ctx, "WaitBlocker", &s.Blocks)
}

func (s *Script) Withdraw(_ context.Context, id, _ string) (leasegate.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Withdrawn = append(s.Withdrawn, id)
	return leasegate.Result{Outcome: leasegate.Withdrawn}, nil
}

func (s *Script) Join(_ context.Context, r leasegate.Registration) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Joined = append(s.Joined, r)
	if r.JoinRoot && s.JoinAs != "" {
		return s.JoinAs, nil
	}
	return r.Name, nil
}

func (s *Script) Heartbeat(context.Context, string) (leasegate.Beat, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls["Heartbeat"]++
	return s.Beat, nil
}

func (s *Script) End(_ context.Context, name, _ string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Ended = append(s.Ended, name)
	return 0, nil
}

// LeaseOn is an active auto lease of owner on path.
func LeaseOn(owner, path string) gate.Lease {
	return gate.Lease{ID: gate.LeaseID("L-" + path), Owner: gate.Owner{Name: owner}, Kind: gate.KindAuto, State: gate.StateActive,
		Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{path}}}
}

// Granted is a grant of path to owner.
func Granted(owner, path string) Answer {
	return Answer{Result: leasegate.Result{Outcome: leasegate.Granted, Leases: []gate.Lease{LeaseOn(owner, path)}}}
}

// Contended is requester's write of path waiting for its retry: bob holds
// it.
func Contended(requester, path string) Answer {
	return Answer{Result: leasegate.Result{Outcome: leasegate.Contended, Contention: &leasegate.ContentionView{
		ID: "C1", Requester: requester, Paths: []string{path}, Holder: LeaseOn("bob", path)}}}
}

// Blocked is requester's write of path held by open blocker B1 after its
// retry found bob still holding it.
func Blocked(requester, path string) Answer {
	c := Contended(requester, path).Result.Contention
	rep := blocker.Report{ID: "B1", Path: path, Paths: []string{path}, Status: blocker.StatusOpen, RetryInterval: 3 * time.Minute}
	rep.Holder.Owner, rep.Holder.LeaseID = gate.Owner{Name: "bob"}, "L-"+gate.LeaseID(path)
	return Answer{Result: leasegate.Result{Outcome: leasegate.Blocked, Contention: c, Blocker: &rep}}
}

// Refused is the coordinator refusing the step with reason.
func Refused(reason gate.Reason, msg string) Answer {
	return Answer{Err: &gate.DeniedError{Reason: reason, Message: msg}}
}

// Unavailable is a coordinator that cannot be reached.
func Unavailable() Answer {
	return Answer{Err: fmt.Errorf("%w at test.sock: connection refused", api.ErrUnavailable)}
}

// Hang is a step the coordinator takes and never answers.
var Hang = Answer{Hang: true}
