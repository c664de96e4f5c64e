package sidecar

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/benbjohnson/clock"
	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

// fakeService is a coordinator that answers from a script. It embeds a
// nil leasegate.Service, so a call the sidecar is not expected to make
// panics instead of passing unnoticed.
type fakeService struct {
	leasegate.Service

	mu         sync.Mutex
	mutates    []answer // answers to Mutate, in order; the last one repeats
	waits      []answer // answers to WaitContention
	blocks     []answer // answers to WaitBlocker
	asked      []leasegate.MutateRequest
	calls      map[string]int
	withdrawn  []string
	registered int
	beat       leasegate.Beat // the answer to every Heartbeat
	// inWaitBlocker, when set, is called by each WaitBlocker before it
	// answers: a test's look at the sidecar while the write is held.
	inWaitBlocker func()
}

// answer is one scripted reply.
type answer struct {
	r   leasegate.Result
	err error
}

var _ Coordinator = (*fakeService)(nil)

func newFakeService() *fakeService { return &fakeService{calls: map[string]int{}} }

// next pops the next answer of a script, repeating the last one.
func (f *fakeService) next(call string, script *[]answer) (leasegate.Result, error) {
	f.calls[call]++
	if len(*script) == 0 {
		panic(call + " called with no answer scripted")
	}
	a := (*script)[0]
	if len(*script) > 1 {
		*script = (*script)[1:]
	}
	return a.r, a.err
}

func (f *fakeService) Mutate(_ context.Context, req leasegate.MutateRequest) (leasegate.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, req)
	return f.next("Mutate", &f.mutates)
}

func (f *fakeService) WaitContention(context.Context, string) (leasegate.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.next("WaitContention", &f.waits)
}

func (f *fakeService) WaitBlocker(context.Context, string) (leasegate.Result, error) {
	if f.inWaitBlocker != nil {
		f.inWaitBlocker()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.next("WaitBlocker", &f.blocks)
}

func (f *fakeService) Withdraw(_ context.Context, id, _ string) (leasegate.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.withdrawn = append(f.withdrawn, id)
	return leasegate.Result{Outcome: leasegate.Withdrawn}, nil
}

func (f *fakeService) Join(_ context.Context, r leasegate.Registration) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.registered++
	return r.Name, nil
}

func (f *fakeService) Heartbeat(context.Context, string) (leasegate.Beat, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls["Heartbeat"]++
	return f.beat, nil
}

func (f *fakeService) count(call string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[call]
}

// fakeSidecar is a Sidecar of owner alice over svc, trusting its cache
// without bound as a coordinator of one machine answers, for a workspace in a
// temporary directory where every path is gated (no git), with its
// notices in the returned buffer.
func fakeSidecar(t *testing.T, svc *fakeService) (*Sidecar, *bytes.Buffer) {
	t.Helper()
	root := t.TempDir()
	cfg := workspace.DefaultConfig()
	cfg.GateGitIgnored = true
	ws := &workspace.Workspace{Root: root, GitDir: filepath.Join(root, ".git"), CommonDir: filepath.Join(root, ".git"),
		StateDir: filepath.Join(root, ".git", "leasegate"), Config: cfg}
	rule, err := workspace.NewRule(ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rule.Close() })
	var notices bytes.Buffer
	clk := clock.NewMock()
	s := &Sidecar{cfg: Config{Name: "alice", Workspace: ws, Client: svc, Notices: &notices, Clock: clk},
		log: hclog.NewNullLogger(), rule: rule, held: newHeld(clk), leased: newLeased(), commits: make(chan struct{}, 1)}
	s.held.hear(clk.Now(), leasegate.Beat{}) // a coordinator of one machine: the cache needs no bound
	s.owner = gate.Owner{Name: "alice", PID: 7}
	s.sess = api.ResumeSession(svc, s.registration(), "alice")
	return s, &notices
}

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
		ID: "C1", Requester: "alice", Paths: []string{path}, Holder: leaseOn("bob", path)}}}
}

func blocked(path string) answer {
	c := contended(path).r.Contention
	rep := blocker.Report{ID: "B1", Path: path, Paths: []string{path}, Status: blocker.StatusOpen}
	rep.Holder.Owner = gate.Owner{Name: "bob"}
	return answer{r: leasegate.Result{Outcome: leasegate.Blocked, Contention: c, Blocker: &rep}}
}

func unavailable() answer {
	return answer{err: fmt.Errorf("%w at test.sock: connection refused", api.ErrUnavailable)}
}
