package coordinator_test

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
	"github.com/leasegate/leasegate/store/bolt"
)

// epoch is where every test's mock clock starts.
var epoch = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// fakeProber is the far side of the liveness boundary: each owner's
// verdict is whatever the test set, Alive with evidence by default.
type fakeProber struct {
	mu       sync.Mutex
	verdicts map[string]gate.Liveness
}

func newFakeProber() *fakeProber {
	return &fakeProber{verdicts: make(map[string]gate.Liveness)}
}

func (p *fakeProber) Evaluate(s liveness.Subject, now time.Time) gate.Liveness {
	p.mu.Lock()
	defer p.mu.Unlock()
	v, ok := p.verdicts[s.Owner.Name]
	if !ok {
		v = gate.Liveness{Status: gate.Alive, Evidence: []string{s.Owner.Name + " running (fake prober)"}}
	}
	v.CheckedAt = now
	v.Evidence = slices.Clone(v.Evidence)
	return v
}

// set makes every later verdict on name st with the evidence.
func (p *fakeProber) set(name string, st gate.LivenessStatus, evidence ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.verdicts[name] = gate.Liveness{Status: st, Evidence: evidence}
}

// noticeLog collects what the coordinator hands to Config.Notify.
type noticeLog struct {
	mu  sync.Mutex
	got []leasegate.Notice
}

func (n *noticeLog) add(x leasegate.Notice) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got = append(n.got, x)
}

// of returns the notices of one kind, in delivery order.
func (n *noticeLog) of(kind leasegate.NoticeKind) []leasegate.Notice {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []leasegate.Notice
	for _, x := range n.got {
		if x.Kind == kind {
			out = append(out, x)
		}
	}
	return out
}

// env is one running coordinator on a bbolt ledger in a temp dir, driven by
// a clock.Mock inside a synctest bubble: the test goroutine alone moves
// the clock, and only once every goroutine of the bubble is idle.
type env struct {
	t          *testing.T
	c          *coordinator.Coordinator
	clock      *clock.Mock
	live       *fakeProber
	notices    *noticeLog
	ledgerPath string
	blockerDir string
	edits      []func(*coordinator.Config)
	// start is the clock's reading when the first coordinator started;
	// offsets given to advanceTo count from it.
	start time.Time
	ctx   context.Context
	stop  func()
}

// startEnv opens a coordinator with the contract's defaults changed by
// edits, runs it until the test ends and registers alice and bob. Call it
// inside a synctest bubble.
func startEnv(t *testing.T, edits ...func(*coordinator.Config)) *env {
	t.Helper()
	mock := clock.NewMock()
	mock.Set(epoch)
	e := &env{t: t, clock: mock, live: newFakeProber(), notices: &noticeLog{},
		ledgerPath: filepath.Join(t.TempDir(), "ledger.db"), blockerDir: filepath.Join(t.TempDir(), "blockers"),
		edits: edits, start: mock.Now()}
	e.open()
	e.register("alice")
	e.register("bob")
	return e
}

// open opens and runs a coordinator on the env's ledger file.
func (e *env) open() {
	e.t.Helper()
	ledger, err := bolt.Open(e.ledgerPath, bolt.Config{NoSync: true})
	if err != nil {
		e.t.Fatalf("bolt.Open(%s) = %v", e.ledgerPath, err)
	}
	cfg := coordinator.DefaultConfig()
	cfg.Ledger, cfg.Liveness, cfg.Clock, cfg.BlockerDir = ledger, e.live, e.clock, e.blockerDir
	cfg.Notify, cfg.Logger = e.notices.add, testLogger(e.t)
	for _, edit := range e.edits {
		edit(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c, err := coordinator.Open(ctx, cfg)
	if err != nil {
		cancel()
		e.t.Fatalf("coordinator.Open() = %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := c.Run(ctx); err != nil {
			e.t.Errorf("Run() = %v, want nil", err)
		}
	}()
	var once sync.Once
	e.c, e.ctx = c, ctx
	e.stop = func() { once.Do(func() { cancel(); <-done }) }
	e.t.Cleanup(e.stop)
	synctest.Wait()
}

// reopen stops the coordinator and opens a new one on the same ledger,
// clock and prober: a restart.
func (e *env) reopen() {
	e.t.Helper()
	e.stop()
	e.open()
}

func (e *env) register(name string) {
	e.t.Helper()
	if err := e.c.Register(e.ctx, leasegate.Registration{Owner: gate.Owner{Name: name}}); err != nil {
		e.t.Fatalf("Register(%s) = %v", name, err)
	}
}

// at is the instant at offset d from start.
func (e *env) at(d time.Duration) time.Time { return e.start.Add(d) }

// now is the clock's offset from start.
func (e *env) now() time.Duration { return e.clock.Now().Sub(e.start) }

// advanceTo moves the clock to start+at once the bubble is idle, and
// waits until everything that came due has run.
func (e *env) advanceTo(at time.Duration) {
	e.t.Helper()
	synctest.Wait()
	d := e.at(at).Sub(e.clock.Now())
	if d < 0 {
		e.t.Fatalf("advanceTo(%s): the clock is already at %s", at, e.now())
	}
	e.clock.Add(d)
	synctest.Wait()
}

// mutate gates a write of paths by owner and fails the test on an error.
func (e *env) mutate(owner string, paths ...string) leasegate.Result {
	e.t.Helper()
	r, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: owner, Op: "write", Paths: paths})
	if err != nil {
		e.t.Fatalf("Mutate(%s, %q) = %v", owner, paths, err)
	}
	return r
}

// checkout acquires a check-out lease for owner on paths (sparse scope).
func (e *env) checkout(owner string, ttl time.Duration, paths ...string) gate.Lease {
	e.t.Helper()
	res, err := e.c.Lease(e.ctx, leasegate.LeaseRequest{Op: gate.OpAcquire, Owner: gate.Owner{Name: owner},
		Scope: gate.Scope{Type: gate.ScopeSparse, Paths: paths}, TTL: ttl})
	if err != nil || len(res.Leases) != 1 {
		e.t.Fatalf("Lease(acquire %s %q) = %d leases, %v; want 1 lease", owner, paths, len(res.Leases), err)
	}
	return res.Leases[0]
}

// events returns the ledger's events of typ, oldest first.
func (e *env) events(typ gate.EventType) []gate.Event {
	e.t.Helper()
	all, err := e.c.History(e.ctx, gate.NoLease, "", 0)
	if err != nil {
		e.t.Fatalf("History() = %v", err)
	}
	var out []gate.Event
	for _, ev := range all {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// held returns the paths of owner's active leases of kind, sorted.
func (e *env) held(owner string, kind gate.Kind) []string {
	var out []string
	for _, l := range mustStatus(e.t, e.c).Leases {
		if l.Owner.Name == owner && l.Kind == kind {
			out = append(out, l.Scope.Paths...)
		}
	}
	slices.Sort(out)
	return out
}

// lease returns a lease by id, failing the test when it is unknown.
func (e *env) lease(id gate.LeaseID) gate.Lease {
	e.t.Helper()
	l, ok := leaseOf(e.c, id)
	if !ok {
		e.t.Fatalf("Get(%s): no such lease", id)
	}
	return l
}

// cancelled is a context that has already ended: a Wait with it reports
// where things stand without waiting.
func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// testLogger routes the coordinator's logs to t.Log.
func testLogger(t *testing.T) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: "test", Level: hclog.Info, Output: tWriter{t}})
}

type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// mustStatus returns c's status, failing the test on an error or when
// StatusList, asked right after, differs in its leases or owners' counts.
func mustStatus(tb testing.TB, c *coordinator.Coordinator) leasegate.Status {
	tb.Helper()
	s, err := c.Status(context.Background())
	if err != nil {
		tb.Fatalf("Status() = %v", err)
	}
	ls, list, err := c.StatusList(context.Background())
	if err != nil {
		tb.Fatalf("StatusList() = %v", err)
	}
	if ls.Leases == nil {
		ls.Leases = list.Leases()
	}
	if !reflect.DeepEqual(ls.Leases, s.Leases) || len(ls.Owners) != len(s.Owners) {
		tb.Fatalf("StatusList() = %d leases, %d owners, want Status()'s %d and %d", len(ls.Leases), len(ls.Owners), len(s.Leases), len(s.Owners))
	}
	for i, o := range ls.Owners {
		if o.Name != s.Owners[i].Name || o.Leases != s.Owners[i].Leases {
			tb.Fatalf("StatusList() owner %s with %d leases, want %s with %d", o.Name, o.Leases, s.Owners[i].Name, s.Owners[i].Leases)
		}
	}
	return s
}

// mustBlockers returns c's open blocker reports (all of them with all),
// failing the test on an error.
func mustBlockers(tb testing.TB, c *coordinator.Coordinator, all bool) []blocker.Report {
	tb.Helper()
	bs, err := c.Blockers(context.Background(), all)
	if err != nil {
		tb.Fatalf("Blockers(%t) = %v", all, err)
	}
	return bs
}

// blockerOf returns a blocker report and whether c knows it.
func blockerOf(c *coordinator.Coordinator, id string) (blocker.Report, bool) {
	r, err := c.Blocker(context.Background(), id)
	return r, err == nil
}

// leaseOf returns a lease and whether c knows it.
func leaseOf(c *coordinator.Coordinator, id gate.LeaseID) (gate.Lease, bool) {
	l, err := c.GetLease(context.Background(), id)
	return l, err == nil
}

// mustStats returns c's figures, failing the test on an error.
func mustStats(tb testing.TB, c *coordinator.Coordinator) leasegate.Stats {
	tb.Helper()
	st, err := c.Stats(context.Background())
	if err != nil {
		tb.Fatalf("Stats() = %v", err)
	}
	return st
}
