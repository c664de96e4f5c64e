package integration_test

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// cutter forwards loopback TCP connections to etcd members until cut:
// then every connection through it is closed and new ones are refused,
// as when a machine is cut off from the cluster; restore lets them in
// again.
type cutter struct {
	mu    sync.Mutex
	cut   bool
	conns []net.Conn
	lns   []net.Listener
	wg    sync.WaitGroup
}

// newCutter listens on one loopback port per endpoint and returns the
// endpoints to use instead.
func newCutter(t *testing.T, endpoints []string) (*cutter, []string) {
	t.Helper()
	c := &cutter{}
	var via []string
	for _, ep := range endpoints {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		c.lns = append(c.lns, ln)
		via = append(via, "http://"+ln.Addr().String())
		target := strings.TrimPrefix(ep, "http://")
		c.wg.Go(func() { c.serve(ln, target) })
	}
	t.Cleanup(c.close)
	return c, via
}

func (c *cutter) serve(ln net.Listener, target string) {
	for {
		in, err := ln.Accept()
		if err != nil {
			return // closed
		}
		c.mu.Lock()
		if c.cut {
			c.mu.Unlock()
			in.Close()
			continue
		}
		out, err := net.Dial("tcp", target)
		if err != nil {
			c.mu.Unlock()
			in.Close()
			continue
		}
		c.conns = append(c.conns, in, out)
		c.mu.Unlock()
		c.wg.Go(func() { _, _ = io.Copy(out, in); out.Close() })
		c.wg.Go(func() { _, _ = io.Copy(in, out); in.Close() })
	}
}

// setCut cuts (true) or restores (false) the way to the cluster.
func (c *cutter) setCut(cut bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cut = cut
	if cut {
		for _, conn := range c.conns {
			conn.Close()
		}
		c.conns = nil
	}
}

func (c *cutter) close() {
	for _, ln := range c.lns {
		ln.Close()
	}
	c.setCut(true)
	c.wg.Wait()
}

// TestClusterCutOffHoldsWrites: machine-a's coordinator reaches etcd
// through a connection the test cuts, while it and its workers keep
// running. alice on machine-a holds f.txt; once machine-a is cut off for
// longer than the 2 s session TTL, machine-b reclaims the file and bob
// writes it there. alice's next write to f.txt, which her sidecar had
// cached as covered by her lease, is held and does not land: machine-a's
// coordinator stopped granting and made its sidecars drop their caches
// when its session lapsed. When the connection is restored it takes a new
// session, reloads the table and her write waits for bob's lease.
func TestClusterCutOffHoldsWrites(t *testing.T) {
	etcd := startEtcd(t, 3)
	// machine-a is cut off past its 2 s session TTL; machine-b, which must
	// keep its session throughout, has a long one, so that a loaded runner
	// starving it of CPU for a moment does not end it.
	cfg := func(endpoints []string, ttl string) string {
		return fmt.Sprintf(`{"cluster": {"endpoints": ["%s"], "workspace": "cutoff", "session_ttl": %q}}`, strings.Join(endpoints, `", "`), ttl)
	}
	b := newCheckout(t, map[string]string{"leasegate.json": cfg(etcd.Endpoints, "15s"), "f.txt": "f\n"})
	a := cloneCheckout(t, b)
	cut, via := newCutter(t, etcd.Endpoints)
	if err := os.WriteFile(filepath.Join(a.dir, "leasegate.json"), []byte(cfg(via, "2s")), 0o644); err != nil {
		t.Fatal(err)
	}
	a.host, b.host = "machine-a", "machine-b"
	a.startServer(retryAfter, idleAfter)
	b.startServer(retryAfter, idleAfter)
	ct := startContest(t, a, b)
	cut.setCut(true)
	ct.aliceHeld(t, "while it was cut off")
	cut.setCut(false)
	ct.aliceWaitsForBob(t, "once it is back")
}

// TestClusterPausedCoordinatorHoldsWrites: machine-a's coordinator is
// paused (SIGSTOP) for longer than its 2 s session TTL while alice's
// worker on machine-a, which holds f.txt, keeps running. machine-b
// reclaims the file and bob writes it there. alice's next write to f.txt,
// which her sidecar had cached as covered by her lease, does not land: a
// paused coordinator cuts no event stream, but the sidecar trusts its
// cache only as long as the last heartbeat answer said the session would
// live, and then asks the coordinator, which answers nothing while paused.
// Continued, the coordinator takes a new session, reloads the table and
// her write waits for bob's lease.
func TestClusterPausedCoordinatorHoldsWrites(t *testing.T) {
	etcd := startEtcd(t, 3)
	cfg := func(ttl string) string {
		return fmt.Sprintf(`{"cluster": {"endpoints": ["%s"], "workspace": "paused", "session_ttl": %q}}`, strings.Join(etcd.Endpoints, `", "`), ttl)
	}
	b := newCheckout(t, map[string]string{"leasegate.json": cfg("15s"), "f.txt": "f\n"})
	a := cloneCheckout(t, b)
	if err := os.WriteFile(filepath.Join(a.dir, "leasegate.json"), []byte(cfg("2s")), 0o644); err != nil {
		t.Fatal(err)
	}
	a.host, b.host = "machine-a", "machine-b"
	a.startServer(retryAfter, idleAfter)
	b.startServer(retryAfter, idleAfter)
	coord := a.server.Process
	t.Cleanup(func() { _ = resume(coord) }) // before stopServer, which runs after it
	ct := startContest(t, a, b)
	if err := pause(coord); err != nil {
		t.Fatal(err)
	}
	ct.aliceHeld(t, "while its coordinator was paused")
	if err := resume(coord); err != nil {
		t.Fatal(err)
	}
	ct.aliceWaitsForBob(t, "once its coordinator runs again")
}

// contest is alice on machine-a holding f.txt, who writes it again once
// signalled, and bob on machine-b whose write of it waits for her lease.
type contest struct {
	a, b  *repo
	alice *worker
	again string // the file whose creation signals alice
}

// startContest starts alice and bob and returns once bob's write waits
// for alice's lease.
func startContest(t *testing.T, a, b *repo) *contest {
	t.Helper()
	ct := &contest{a: a, b: b, again: filepath.Join(t.TempDir(), "again")}
	ct.alice = a.workerEnv("alice", "echo alice > f.txt; while [ ! -e "+ct.again+" ]; do sleep 0.1; done; echo alice-again >> f.txt; sleep 600", "LEASEGATE_NO_START=1")
	eventually(t, 30*time.Second, "machine-b sees alice holding f.txt", func() bool { return b.holders()["f.txt"] == "alice" })
	b.startEnv([]string{"LEASEGATE_NO_START=1"}, "run", "--as", "bob", "--retry-after", "60s", "--", "sh", "-c", "echo bob >> f.txt; sleep 600")
	eventually(t, 30*time.Second, "bob's write held on machine-b", func() bool {
		for _, c := range b.status().Contentions {
			if c.Requester == "bob" && c.Holder.Owner.Host == "machine-a" {
				return true
			}
		}
		return false
	})
	return ct
}

// aliceHeld waits for machine-b to reclaim f.txt and bob's write to land
// there, then signals alice and checks that her write, which her sidecar
// had cached as covered by her lease, does not land and her worker goes
// on; while says what machine-a is going through.
func (ct *contest) aliceHeld(t *testing.T, while string) {
	t.Helper()
	eventually(t, 30*time.Second, "bob's write landed on machine-b", func() bool {
		return ct.b.holders()["f.txt"] == "bob" && strings.Contains(ct.b.read("f.txt"), "bob")
	})
	if err := os.WriteFile(ct.again, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// alice polls for the signal every 0.1 s; whatever her write does in
	// this time must not be landing.
	time.Sleep(3 * time.Second)
	if got := ct.a.read("f.txt"); strings.Contains(got, "alice-again") {
		t.Fatalf("alice's cached write landed on machine-a %s and bob held f.txt: %q", while, got)
	}
	select {
	case <-ct.alice.done:
		t.Fatalf("alice's worker ended %s (exit %d): %s", while, ct.alice.code, ct.alice.out.String())
	default:
	}
}

// aliceWaitsForBob checks that alice's write waits for bob's lease on
// machine-a once machine-a is whole again (when), and has not landed.
func (ct *contest) aliceWaitsForBob(t *testing.T, when string) {
	t.Helper()
	eventually(t, 60*time.Second, "alice's write waits for bob on machine-a "+when, func() bool {
		for _, c := range ct.a.status().Contentions {
			if c.Requester == "alice" && c.Holder.Owner.Name == "bob" {
				return true
			}
		}
		return false
	})
	if got := ct.a.read("f.txt"); strings.Contains(got, "alice-again") {
		t.Fatalf("alice's write landed while bob holds f.txt: %q", got)
	}
}
