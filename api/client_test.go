package api_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
	"github.com/leasegate/leasegate/store/storetest"
)

// TestClientNothingListening: with no coordinator on the socket every call
// fails with ErrUnavailable.
func TestClientNothingListening(t *testing.T) {
	cl := newClient(t, api.ClientConfig{Socket: filepath.Join(socketDir(t), "none.sock")})
	ctx := context.Background()
	r, err := cl.Mutate(ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"a.txt"}})
	if !isUnavailable(err) || r.Outcome == leasegate.Granted {
		t.Fatalf("Mutate() with nothing listening = %s, %v; want ErrUnavailable", r.Outcome, err)
	}
	if _, err := cl.Health(ctx); !isUnavailable(err) {
		t.Fatalf("Health() with nothing listening = %v, want ErrUnavailable", err)
	}
	if err := cl.Events(ctx, 0, false, func(gate.Event) error { return nil }); !isUnavailable(err) {
		t.Fatalf("Events() with nothing listening = %v, want ErrUnavailable", err)
	}
}

// TestClientNoListenerSaidAtOnce: a socket nobody listens on (the file of
// a coordinator that was killed, or no file at all) is ErrUnavailable on
// the first attempt, with the client's default retries: nothing will
// answer until a coordinator is started, and the caller must know now,
// not after the backoff of every retry (about 3 s).
func TestClientNoListenerSaidAtOnce(t *testing.T) {
	dir := socketDir(t)
	dead := filepath.Join(dir, "dead.sock")
	ln, err := net.Listen("unix", dead)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false) // the file stays, as a killed coordinator's does
	ln.Close()
	for _, sock := range []string{dead, filepath.Join(dir, "none.sock")} {
		cl, err := api.NewClient(api.ClientConfig{Socket: sock})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Close)
		start := time.Now()
		r, err := cl.Mutate(context.Background(), leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"a.txt"}})
		if took := time.Since(start); !isUnavailable(err) || r.Outcome == leasegate.Granted || took > time.Second {
			t.Errorf("Mutate() on %s = %s, %v after %s; want ErrUnavailable at once", filepath.Base(sock), r.Outcome, err, took)
		}
	}
}

// impostor serves handler on a unix socket until the test ends and
// returns the socket path.
func impostor(t *testing.T, handler http.HandlerFunc) string {
	t.Helper()
	sock := filepath.Join(socketDir(t), "impostor.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: handler}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close(); <-done })
	return sock
}

// TestClientGarbageIsUnavailable: a server that does not speak the API
// (not JSON, HTML errors, truncated JSON, error codes without an API body)
// is unavailable, never a grant.
func TestClientGarbageIsUnavailable(t *testing.T) {
	tests := []struct {
		name   string
		status int
		ctype  string
		body   string
	}{
		{name: "200 not json", status: http.StatusOK, ctype: "text/plain", body: "not json"},
		{name: "200 truncated json", status: http.StatusOK, ctype: "application/json", body: `{"outcome":"granted","leases":[`},
		{name: "500 html", status: http.StatusInternalServerError, ctype: "text/html", body: "<html><body>Internal Server Error</body></html>"},
		{name: "502 html", status: http.StatusBadGateway, ctype: "text/html", body: "<html>bad gateway</html>"},
		{name: "409 html", status: http.StatusConflict, ctype: "text/html", body: "<html>conflict</html>"},
		{name: "403 json without a code", status: http.StatusForbidden, ctype: "application/json", body: `{"error":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sock := impostor(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.ctype)
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			})
			cl := newClient(t, api.ClientConfig{Socket: sock})
			ctx := context.Background()
			r, err := cl.Mutate(ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"a.txt"}})
			if !isUnavailable(err) || r.Outcome == leasegate.Granted {
				t.Fatalf("Mutate() against %s = %s, %v; want ErrUnavailable", tt.name, r.Outcome, err)
			}
			if _, err := cl.Health(ctx); !isUnavailable(err) {
				t.Fatalf("Health() against %s = %v, want ErrUnavailable", tt.name, err)
			}
		})
	}
}

// TestClientHealthChecksProtocol: a JSON answer that is not the API's
// health is unavailable.
func TestClientHealthChecksProtocol(t *testing.T) {
	sock := impostor(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true,"api":"v0"}`))
	})
	if _, err := newClient(t, api.ClientConfig{Socket: sock}).Health(context.Background()); !isUnavailable(err) {
		t.Fatalf("Health() against another API version = %v, want ErrUnavailable", err)
	}
}

// unavailableLog records Observer.Unavailable calls.
type unavailableLog struct {
	mu       sync.Mutex
	attempts []int
	first    chan struct{}
}

func newUnavailableLog() *unavailableLog { return &unavailableLog{first: make(chan struct{})} }

func (u *unavailableLog) observe(err error, attempt int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if !isUnavailable(err) {
		panic("Observer.Unavailable called with " + err.Error())
	}
	if len(u.attempts) == 0 {
		close(u.first)
	}
	u.attempts = append(u.attempts, attempt)
}

func (u *unavailableLog) got() []int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]int(nil), u.attempts...)
}

// TestGateWaitsWhileUnavailable: Gate never proceeds while the coordinator
// is unreachable: it tells the observer each attempt, and returns ctx's
// error when ctx ends.
func TestGateWaitsWhileUnavailable(t *testing.T) {
	cl := newClient(t, api.ClientConfig{Socket: filepath.Join(socketDir(t), "none.sock")})
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	log := newUnavailableLog()
	r, err := api.Gate(ctx, cl, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"a.txt"}}, api.Observer{Unavailable: log.observe})
	if !errors.Is(err, context.DeadlineExceeded) || r.Outcome == leasegate.Granted {
		t.Fatalf("Gate() while unavailable = %s, %v; want ctx's deadline error", r.Outcome, err)
	}
	got := log.got()
	if len(got) < 2 {
		t.Fatalf("Observer.Unavailable calls %v, want at least 2 (it keeps trying)", got)
	}
	for i, a := range got {
		if a != i+1 {
			t.Fatalf("Observer.Unavailable attempts %v, want 1, 2, 3, ...", got)
		}
	}
}

// TestGateResumesWhenCoordinatorArrives: a Gate that started while nothing
// listened is granted once the coordinator comes up on the socket.
func TestGateResumesWhenCoordinatorArrives(t *testing.T) {
	s := serve(t)
	sock := filepath.Join(socketDir(t), "late.sock")
	cl := newClient(t, api.ClientConfig{Socket: sock})
	log := newUnavailableLog()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	go func() {
		select {
		case <-log.first:
		case <-ctx.Done():
			return
		}
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Error(err)
			return
		}
		s.serveOn(t, ln, false)
	}()
	r, err := api.Gate(ctx, cl, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"a.txt"}}, api.Observer{Unavailable: log.observe})
	if err != nil || r.Outcome != leasegate.Granted {
		t.Fatalf("Gate() after the coordinator arrived = %s, %v; want granted", r.Outcome, err)
	}
	if len(log.got()) == 0 {
		t.Fatal("Gate never saw the coordinator unavailable")
	}
}

// shortRetry shortens the retry window: these tests are about the
// client's loop, not the 180 s contract.
func shortRetry(c *coordinator.Config) { c.Windows.Retry.After = 200 * time.Millisecond }

// bounded is a context that ends with the test or after 20 s, so a Gate
// that never returns fails the test instead of hanging it.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// stages records what a Gate's observer heard.
type stages struct {
	contended, blocked atomic.Int32
}

// TestGateGrantedAfterRelease: denied, the holder releases during the
// window, and Gate returns the retry's grant.
func TestGateGrantedAfterRelease(t *testing.T) {
	s := serve(t, shortRetry)
	s.mutate(t, "alice", "a.txt")
	var st stages
	obs := api.Observer{
		Contended: func(r leasegate.Result) {
			st.contended.Add(1)
			if _, err := s.client.End(context.Background(), "alice", "worker exited"); err != nil {
				t.Errorf("End(alice) = %v", err)
			}
		},
		Blocked: func(leasegate.Result) bool { st.blocked.Add(1); return false },
	}
	r, err := api.Gate(bounded(t), s.client, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: []string{"a.txt"}}, obs)
	if err != nil || r.Outcome != leasegate.Granted {
		t.Fatalf("Gate() = %s, %v; want granted after the release", r.Outcome, err)
	}
	if c, b := st.contended.Load(), st.blocked.Load(); c != 1 || b != 0 {
		t.Fatalf("observer heard %d contended and %d blocked, want 1 and 0", c, b)
	}
	if !s.holds(t, "bob", "a.txt") {
		t.Fatal("bob does not hold a.txt after Gate granted it")
	}
}

// TestGateBlockedWhenObserverDoesNotHold: still held at the retry, Gate
// returns the blocker when Observer.Blocked says not to hold.
func TestGateBlockedWhenObserverDoesNotHold(t *testing.T) {
	s := serve(t, shortRetry)
	s.mutate(t, "alice", "a.txt")
	var st stages
	obs := api.Observer{
		Contended: func(leasegate.Result) { st.contended.Add(1) },
		Blocked:   func(leasegate.Result) bool { st.blocked.Add(1); return false },
	}
	r, err := api.Gate(bounded(t), s.client, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: []string{"a.txt"}}, obs)
	if err != nil || r.Outcome != leasegate.Blocked || r.Blocker == nil || r.Blocker.Holder.Owner.Name != "alice" {
		t.Fatalf("Gate() = %+v, %v; want blocked on alice with a report", r, err)
	}
	if c, b := st.contended.Load(), st.blocked.Load(); c != 1 || b != 1 {
		t.Fatalf("observer heard %d contended and %d blocked, want 1 and 1", c, b)
	}
	if s.holds(t, "bob", "a.txt") {
		t.Fatal("blocked bob holds a.txt")
	}
}

// TestGateHoldsForOperator: when the observer holds, Gate waits on the
// blocker and returns what the operator decided.
func TestGateHoldsForOperator(t *testing.T) {
	tests := []struct {
		name    string
		action  blocker.Action
		release bool
		want    leasegate.Outcome
	}{
		{name: "deny", action: blocker.ActionDeny, want: leasegate.Denied},
		{name: "abort", action: blocker.ActionAbort, want: leasegate.Aborted},
		{name: "retry after release", action: blocker.ActionRetry, release: true, want: leasegate.Granted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := serve(t, shortRetry)
			s.mutate(t, "alice", "a.txt")
			var wg sync.WaitGroup
			defer wg.Wait()
			obs := api.Observer{Blocked: func(r leasegate.Result) bool {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s.operator(t, r.Blocker.ID, tt.action, tt.release)
				}()
				return true
			}}
			r, err := api.Gate(bounded(t), s.client, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: []string{"a.txt"}}, obs)
			if err != nil || r.Outcome != tt.want {
				t.Fatalf("Gate() held for the operator = %s, %v; want %s", r.Outcome, err, tt.want)
			}
		})
	}
}

// operator answers a blocker through the API, releasing the holder first
// if asked.
func (s *testServer) operator(t *testing.T, id string, a blocker.Action, release bool) {
	ctx := context.Background()
	if release {
		if _, err := s.client.End(ctx, "alice", "worker exited"); err != nil {
			t.Errorf("End(alice) = %v", err)
		}
	}
	if _, err := s.client.Resolve(ctx, id, a, "operator", ""); err != nil {
		t.Errorf("Resolve(%s) = %v", a, err)
	}
}

var errDisk = errors.New("injected disk error")

// brokenLedger fails every append once broken is set; storetest.AppendOnly
// makes the coordinator's EnqueueAck of this Append.
type brokenLedger struct {
	store.Ledger
	broken *atomic.Bool
}

func (l brokenLedger) Append(ctx context.Context, evs ...gate.Event) ([]gate.Event, error) {
	if l.broken.Load() {
		return nil, errDisk
	}
	return l.Ledger.Append(ctx, evs...)
}

// TestGateNeverGrantsOnFailedCoordinator: once the coordinator's ledger
// failed, its 503 answers are unavailable to the client and Gate waits
// until ctx ends instead of proceeding.
func TestGateNeverGrantsOnFailedCoordinator(t *testing.T) {
	broken := new(atomic.Bool)
	s := serve(t, func(c *coordinator.Config) { c.Ledger = storetest.AppendOnly(brokenLedger{c.Ledger, broken}) })
	broken.Store(true)
	ctx := context.Background()
	r, err := s.client.Mutate(ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"a.txt"}})
	if !isUnavailable(err) || r.Outcome == leasegate.Granted {
		t.Fatalf("Mutate() on a failed ledger = %s, %v; want ErrUnavailable", r.Outcome, err)
	}
	broken.Store(false)
	short, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	r, err = api.Gate(short, s.client, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: []string{"b.txt"}}, api.Observer{})
	if !errors.Is(err, context.DeadlineExceeded) || r.Outcome == leasegate.Granted {
		t.Fatalf("Gate() on a failed coordinator = %s, %v; want ctx's deadline error", r.Outcome, err)
	}
}
