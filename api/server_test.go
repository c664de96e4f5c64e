package api_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
	"github.com/leasegate/leasegate/store/bolt"
)

// adminToken guards eviction, and every request on TCP.
const adminToken = "admin-secret"

// fakeProber is the far side of the liveness boundary: every owner is
// alive unless the test says otherwise.
type fakeProber struct {
	mu   sync.Mutex
	dead map[string]bool
}

func (p *fakeProber) Evaluate(s liveness.Subject, now time.Time) gate.Liveness {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dead[s.Owner.Name] {
		return gate.Liveness{Status: gate.Dead, CheckedAt: now, Evidence: []string{"gone (fake prober)"}}
	}
	return gate.Liveness{Status: gate.Alive, CheckedAt: now, Evidence: []string{"running (fake prober)"}}
}

// offsetClock is the real clock moved forward by a settable offset: a
// check-out's TTL can run out without waiting, while timers keep real
// time.
type offsetClock struct {
	clock.Clock
	off atomic.Int64
}

func (c *offsetClock) Now() time.Time                  { return c.Clock.Now().Add(time.Duration(c.off.Load())) }
func (c *offsetClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }
func (c *offsetClock) Until(t time.Time) time.Duration { return t.Sub(c.Now()) }
func (c *offsetClock) jump(d time.Duration)            { c.off.Add(int64(d)) }

// testServer is a real coordinator on a bbolt ledger, served by
// api.Server on a unix socket, with a real client.
type testServer struct {
	c      *coordinator.Coordinator
	clock  *offsetClock
	sock   string
	client *api.Client
	srv    *api.Server
	ctx    context.Context
	wg     *sync.WaitGroup
}

// socketDir returns a short temp dir (unix socket paths are limited to
// 108 bytes).
func socketDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "lgapi")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// serve starts a coordinator with DefaultConfig changed by edits, serves
// it on a unix socket until the test ends and registers alice and bob.
func serve(t *testing.T, edits ...func(*coordinator.Config)) *testServer {
	t.Helper()
	s := &testServer{clock: &offsetClock{Clock: clock.New()}, sock: filepath.Join(socketDir(t), "coord.sock"), wg: new(sync.WaitGroup)}
	ledger, err := bolt.Open(filepath.Join(t.TempDir(), "ledger.db"), bolt.Config{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	cfg := coordinator.DefaultConfig()
	cfg.Ledger, cfg.Liveness, cfg.Clock = ledger, &fakeProber{dead: map[string]bool{}}, s.clock
	for _, edit := range edits {
		edit(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if s.c, err = coordinator.Open(ctx, cfg); err != nil {
		cancel()
		t.Fatal(err)
	}
	s.ctx, s.srv = ctx, api.NewServer(s.c, adminToken, api.Health{Version: "test"}, nil)
	s.wg.Add(1)
	go func() { defer s.wg.Done(); _ = s.c.Run(ctx) }()
	t.Cleanup(func() { cancel(); s.wg.Wait() })
	s.listen(t, "unix", s.sock, false)
	s.client = newClient(t, api.ClientConfig{Socket: s.sock})
	for _, name := range []string{"alice", "bob"} {
		if err := s.client.Register(ctx, leasegate.Registration{Owner: gate.Owner{Name: name}}); err != nil {
			t.Fatalf("Register(%s) = %v", name, err)
		}
	}
	return s
}

// listen serves the API on a new listener and returns its address.
func (s *testServer) listen(t *testing.T, network, addr string, tcp bool) string {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	s.serveOn(t, ln, tcp)
	return ln.Addr().String()
}

// serveOn serves the API on ln until the test ends.
func (s *testServer) serveOn(t *testing.T, ln net.Listener, tcp bool) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := s.srv.Serve(s.ctx, ln, tcp); err != nil {
			t.Errorf("Serve(%s) = %v", ln.Addr(), err)
		}
	}()
}

// newClient returns a client that retries once (a test need not wait
// through the default backoff) and is closed when the test ends.
func newClient(t *testing.T, cfg api.ClientConfig) *api.Client {
	t.Helper()
	if cfg.RetryMax == 0 {
		cfg.RetryMax = 1
	}
	cl, err := api.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// rawClient is a plain HTTP client for the unix socket at sock.
func rawClient(t *testing.T, sock string) *http.Client {
	t.Helper()
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// mutate gates a write through the client and fails the test on an error.
func (s *testServer) mutate(t *testing.T, owner string, paths ...string) leasegate.Result {
	t.Helper()
	r, err := s.client.Mutate(context.Background(), leasegate.MutateRequest{Owner: owner, Op: "write", Paths: paths})
	if err != nil {
		t.Fatalf("Mutate(%s, %q) = %v", owner, paths, err)
	}
	return r
}

// checkout acquires a check-out lease through the client.
func (s *testServer) checkout(t *testing.T, owner string, ttl time.Duration, paths ...string) gate.Lease {
	t.Helper()
	res, err := s.client.Lease(context.Background(), leasegate.LeaseRequest{Op: gate.OpAcquire, Owner: gate.Owner{Name: owner},
		Scope: gate.Scope{Type: gate.ScopeSparse, Paths: paths}, TTL: ttl})
	if err != nil || len(res.Leases) != 1 {
		t.Fatalf("Lease(acquire %s %q) = %d leases, %v; want 1", owner, paths, len(res.Leases), err)
	}
	return res.Leases[0]
}

// holds reports whether owner holds an active lease covering path.
func (s *testServer) holds(t *testing.T, owner, path string) bool {
	t.Helper()
	ls, err := s.client.Leases(context.Background(), path)
	if err != nil {
		t.Fatalf("Leases(%s) = %v", path, err)
	}
	return slices.ContainsFunc(ls, func(l gate.Lease) bool { return l.Owner.Name == owner })
}

// isUnavailable reports whether err is the client's fail-closed error.
func isUnavailable(err error) bool { return errors.Is(err, api.ErrUnavailable) }
