package coordinator_test

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/etcdtest"
	"github.com/leasegate/leasegate/store/etcd"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// hostProber is the fake prober on a named machine.
type hostProber struct {
	*fakeProber
	host string
}

func (p hostProber) Host() string { return p.host }

// Session TTLs of the shared-ledger tests: a host that is meant to go
// gets a short one, so that its end is seen in seconds; every other host
// a long one, so that a machine starved of CPU for a moment (a loaded CI
// runner, -race) does not lose a session the test needs to keep.
const (
	goneTTL = 2 * time.Second
	keptTTL = 15 * time.Second
)

// sharedCoordinator runs a coordinator of host, whose etcd session has
// ttl, on the shared workspace until stop is called or the test ends;
// edits change its config first.
func sharedCoordinator(t *testing.T, endpoints []string, host string, ttl time.Duration, edits ...func(*coordinator.Config)) (c *coordinator.Coordinator, stop func()) {
	t.Helper()
	l, err := etcd.Open(context.Background(), etcd.Config{Endpoints: endpoints, Workspace: "hosts", Host: host,
		SessionTTL: ttl, Logger: testLogger(t).Named(host)})
	if err != nil {
		t.Fatal(err)
	}
	cfg := coordinator.DefaultConfig()
	cfg.Ledger, cfg.Liveness, cfg.Logger = l, hostProber{newFakeProber(), host}, testLogger(t).Named(host)
	for _, edit := range edits {
		edit(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c, err = coordinator.Open(ctx, cfg)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = c.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case <-done:
			case <-time.After(time.Minute):
				t.Errorf("the coordinator of %s still runs a minute after its context ended", host)
			}
		})
	}
	t.Cleanup(stop)
	return c, stop
}

// startCluster starts a one-member etcd for the test; it skips, saying
// so, only when etcd is not installed and CI did not ask for it.
func startCluster(t *testing.T) *etcdtest.Cluster {
	t.Helper()
	cluster, err := etcdtest.Start(t.TempDir(), 1)
	if err == etcdtest.ErrNoEtcd && os.Getenv(etcdtest.Env) == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Stop)
	return cluster
}

// TestHostGoneIsReclaimed: host-a's coordinator stops without coming
// back; once its session's TTL has run out, host-b's coordinator reclaims
// host-a's owners' auto leases with that evidence, and takes the file.
func TestHostGoneIsReclaimed(t *testing.T) {
	cluster := startCluster(t)
	ctx := context.Background()
	a, stopA := sharedCoordinator(t, cluster.Endpoints, "host-a", goneTTL)
	b, _ := sharedCoordinator(t, cluster.Endpoints, "host-b", keptTTL)
	if err := a.Register(ctx, leasegate.Registration{Owner: gate.Owner{Name: "alice", Host: "host-a"}}); err != nil {
		t.Fatal(err)
	}
	if err := b.Register(ctx, leasegate.Registration{Owner: gate.Owner{Name: "bob", Host: "host-b"}}); err != nil {
		t.Fatal(err)
	}
	if r, err := a.Mutate(ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"a.txt"}}); err != nil || r.Outcome != leasegate.Granted {
		t.Fatalf("alice's write on host-a = %+v, %v, want granted", r, err)
	}
	if r, err := b.Mutate(ctx, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: []string{"a.txt"}, Try: true}); err != nil || r.Outcome == leasegate.Granted {
		t.Fatalf("bob's write of alice's file on host-b = %+v, %v, want refused", r, err)
	}
	stopA()
	stoppedAt := time.Now()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := b.Mutate(ctx, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: []string{"a.txt"}, Try: true})
		if err == nil && r.Outcome == leasegate.Granted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("bob's write of a.txt after host-a's coordinator stopped = %+v, %v; never granted", r, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	evs, err := b.History(ctx, "", "a.txt", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Type == gate.EventReclaimed && strings.Contains(e.Reason, "host-a lost its etcd session") {
			if !strings.Contains(e.Reason, "seen by the session watch at") || !strings.Contains(e.Reason, "deleted at etcd revision") {
				t.Fatalf("reclaim evidence %q, want the watch as its source and the revision of the session's end", e.Reason)
			}
			t.Logf("reclaimed %v after host-a's coordinator stopped (session TTL 2s)", e.At.Sub(stoppedAt).Round(time.Millisecond))
			return
		}
	}
	t.Fatalf("no reclaim of a.txt naming host-a's lost session in %+v", evs)
}

// TestHostGoneBeforeStartIsReclaimed: host-a's coordinator stops and its
// session runs out before host-b's coordinator starts; host-b, finding no
// session of host-a for the auto leases in its table, reclaims them at
// start and takes the file.
func TestHostGoneBeforeStartIsReclaimed(t *testing.T) {
	cluster := startCluster(t)
	ctx := context.Background()
	a, stopA := sharedCoordinator(t, cluster.Endpoints, "host-a", goneTTL)
	if err := a.Register(ctx, leasegate.Registration{Owner: gate.Owner{Name: "alice", Host: "host-a"}}); err != nil {
		t.Fatal(err)
	}
	if r, err := a.Mutate(ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"a.txt"}}); err != nil || r.Outcome != leasegate.Granted {
		t.Fatalf("alice's write on host-a = %+v, %v, want granted", r, err)
	}
	stopA()
	waitNoSession(t, cluster.Endpoints, "/leasegate/hosts/members/host-a/")
	startedB := time.Now()
	b, _ := sharedCoordinator(t, cluster.Endpoints, "host-b", keptTTL)
	if err := b.Register(ctx, leasegate.Registration{Owner: gate.Owner{Name: "bob", Host: "host-b"}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := b.Mutate(ctx, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: []string{"a.txt"}, Try: true})
		if err == nil && r.Outcome == leasegate.Granted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("bob's write of a.txt on host-b started after host-a's session ended = %+v, %v; never granted", r, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	evs, err := b.History(ctx, "", "a.txt", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Type == gate.EventReclaimed && strings.Contains(e.Reason, "host-a lost its etcd session") {
			found := startedB.UTC().Truncate(time.Second)
			if !strings.Contains(e.Reason, "read the sessions at start") || !strings.Contains(e.Reason, "before "+found.Format(time.RFC3339)) &&
				!strings.Contains(e.Reason, "before "+found.Add(time.Second).Format(time.RFC3339)) {
				t.Fatalf("reclaim evidence %q, want the read at start as its source, found by %s", e.Reason, found.Format(time.RFC3339))
			}
			return
		}
	}
	t.Fatalf("no reclaim of a.txt naming host-a's lost session in %+v", evs)
}

// waitNoSession waits until no member key is left under prefix.
func waitNoSession(t *testing.T, endpoints []string, prefix string) {
	t.Helper()
	cli := etcdClient(t, endpoints)
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := cli.Get(context.Background(), prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err == nil && resp.Count == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("session under %s still there after 30s (%v)", prefix, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// etcdClient is a client of the cluster at endpoints, closed when the test
// ends.
func etcdClient(t *testing.T, endpoints []string) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}
