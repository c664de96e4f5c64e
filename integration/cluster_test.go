package integration_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/etcdtest"
)

// startEtcd starts a real etcd cluster of n members for the test. It fails
// the test when etcd should be there (LEASEGATE_TEST_ETCD set) and does
// not start; it skips, saying so, only when etcd is not installed.
func startEtcd(t *testing.T, n int) *etcdtest.Cluster {
	t.Helper()
	c, err := etcdtest.Start(t.TempDir(), n)
	if err == etcdtest.ErrNoEtcd && os.Getenv(etcdtest.Env) == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatalf("start etcd: %v", err)
	}
	t.Cleanup(c.Stop)
	return c
}

// clusterConfig is a leasegate.json sharing the lease table on c.
func clusterConfig(c *etcdtest.Cluster, name string) string {
	return `{"cluster": ` + clusterValue(c, name) + `}`
}

// clusterValue is the "cluster" object naming workspace name on c: what
// leasegate.json's "cluster" and LEASEGATE_CLUSTER hold.
func clusterValue(c *etcdtest.Cluster, name string) string {
	return fmt.Sprintf(`{"endpoints": ["%s"], "workspace": %q}`, strings.Join(c.Endpoints, `", "`), name)
}

// cloneCheckout clones r's repository into a new directory, with no
// coordinator.
func cloneCheckout(t *testing.T, r *repo) *repo {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := &repo{t: t, dir: filepath.Join(dir, "clone"), env: r.env, log: &bytes.Buffer{}}
	r.git("clone", "-q", r.dir, c.dir)
	return c
}

// TestClusterRaceForFiles: two coordinators on two clones of one
// repository share one lease table on a 3-member etcd cluster; 10 client
// processes on each race for the same 10 files. Every file has exactly one
// holder across both machines, fencing tokens are unique and each is the
// etcd revision of the commit that made its grant (with the grant's place
// in the commit below it), every loser is told the holder and its machine, and both coordinators end with the
// same table.
func TestClusterRaceForFiles(t *testing.T) {
	etcd := startEtcd(t, 3)
	a := newCheckout(t, map[string]string{"leasegate.json": clusterConfig(etcd, "race")})
	b := cloneCheckout(t, a)
	a.host, b.host = "machine-a", "machine-b"
	a.startServer(retryAfter, idleAfter)
	b.startServer(retryAfter, idleAfter)
	const perSide, files = 10, 10
	type answer struct {
		client, file, stdout, stderr string
		code                         int
	}
	answers := make(chan answer, 2*perSide*files)
	var wg sync.WaitGroup
	for c := range 2 * perSide {
		r := a
		if c >= perSide {
			r = b
		}
		wg.Go(func() {
			name := fmt.Sprintf("c%02d", c)
			for f := range files {
				file := fmt.Sprintf("f%02d.txt", (f+c)%files)
				out, errs, code := r.lg("acquire", "--as", name, file, "--json")
				answers <- answer{name, file, out, errs, code}
			}
		})
	}
	wg.Wait()
	close(answers)
	winners := map[string]string{}
	tokens := map[uint64]string{}
	for ans := range answers {
		switch ans.code {
		case 0:
			var res leasegate.LeaseResult
			mustJSON(t, ans.stdout, &res)
			if prev, ok := winners[ans.file]; ok {
				t.Fatalf("%s granted to %s and %s", ans.file, prev, ans.client)
			}
			winners[ans.file] = ans.client
			for _, l := range res.Leases {
				if prev, ok := tokens[l.FencingToken]; ok {
					t.Fatalf("fencing token %d granted twice (%s, %s)", l.FencingToken, prev, ans.client)
				}
				tokens[l.FencingToken] = ans.client
			}
		case 3:
			m := heldByOn.FindStringSubmatch(ans.stderr)
			if m == nil {
				t.Errorf("loser %s on %s was not told the holder and its machine: %q", ans.client, ans.file, ans.stderr)
				continue
			}
			if want := machineOf(m[1], perSide); m[2] != want {
				t.Errorf("loser %s on %s told holder %s is on %s, want %s", ans.client, ans.file, m[1], m[2], want)
			}
		default:
			t.Errorf("acquire %s by %s: exit %d: %s", ans.file, ans.client, ans.code, ans.stderr)
		}
	}
	if len(winners) != files {
		t.Fatalf("%d files have a holder, want %d", len(winners), files)
	}
	fixed := tokensInEtcd(t, etcd, "race")
	for tok, client := range tokens {
		if _, ok := fixed[tok]; !ok {
			t.Errorf("%s was granted token %d, which is no grant's commit revision in etcd (%s)", client, tok, describeTokens(fixed))
		}
	}
	for _, r := range []*repo{a, b} {
		eventually(t, 30*time.Second, "both coordinators hold the same table", func() bool {
			h := r.holders()
			for file, owner := range winners {
				if h[file] != owner {
					return false
				}
			}
			return len(h) == len(winners)
		})
	}
}

// heldByOn finds the holder and its machine in a denial.
var heldByOn = regexp.MustCompile(`held by (c\d\d) on host (machine-[ab])`)

// machineOf is the machine of race client name: the first perSide clients
// run on machine-a.
func machineOf(name string, perSide int) string {
	var n int
	fmt.Sscanf(name, "c%d", &n)
	if n < perSide {
		return "machine-a"
	}
	return "machine-b"
}

// TestClusterQuorum: with one of three etcd members stopped grants go on;
// with two stopped (no quorum) an acquire is held, never granted nor
// refused, and completes once quorum returns; nothing acknowledged is
// lost, and coordinators restarted on the cluster rebuild the same table.
func TestClusterQuorum(t *testing.T) {
	etcd := startEtcd(t, 3)
	a := newCheckout(t, map[string]string{"leasegate.json": clusterConfig(etcd, "quorum")})
	b := cloneCheckout(t, a)
	a.startServer(retryAfter, idleAfter)
	b.startServer(retryAfter, idleAfter)
	a.mustLG("acquire", "--as", "alice", "one.txt")
	etcd.StopMember(2)
	b.mustLG("acquire", "--as", "bob", "two.txt")
	if _, errs, code := a.lg("acquire", "--as", "alice", "two.txt"); code != 3 || !strings.Contains(errs, "bob") {
		t.Fatalf("acquire of bob's file on the other clone with one member down: exit %d %q, want 3 naming bob", code, errs)
	}
	etcd.StopMember(1)
	held := a.start("acquire", "--as", "carol", "three.txt")
	time.Sleep(3 * time.Second) // no quorum: whatever happens in this time must not be an answer
	select {
	case <-held.done:
		t.Fatalf("acquire without quorum answered (exit %d): %s", held.code, held.out.String())
	default:
	}
	for _, i := range []int{1, 2} {
		if err := etcd.RestartMember(i); err != nil {
			t.Fatal(err)
		}
	}
	if code := held.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("held acquire after quorum returned: exit %d: %s", code, held.out.String())
	}
	// The commit's outcome was settled by reading the record back: the
	// token answered is still the revision etcd gave that record.
	m := regexp.MustCompile(`token (\d+)`).FindStringSubmatch(held.out.String())
	if m == nil {
		t.Fatalf("held acquire's answer names no token: %s", held.out.String())
	}
	var tok uint64
	fmt.Sscan(m[1], &tok)
	if _, ok := tokensInEtcd(t, etcd, "quorum")[tok]; !ok {
		t.Fatalf("held acquire answered token %d, not its grant's commit revision in etcd", tok)
	}
	want := map[string]string{"one.txt": "alice", "two.txt": "bob", "three.txt": "carol"}
	for _, r := range []*repo{a, b} {
		eventually(t, 30*time.Second, "both coordinators hold every acknowledged grant", func() bool {
			return equalHolders(r.holders(), want)
		})
	}
	before := leaseTokens(a.status().Leases)
	a.stopServer()
	b.stopServer()
	a.startServer(retryAfter, idleAfter)
	b.startServer(retryAfter, idleAfter)
	for _, r := range []*repo{a, b} {
		if h := r.holders(); !equalHolders(h, want) {
			t.Fatalf("after restarting the coordinators holders = %v, want %v", h, want)
		}
		if got := leaseTokens(r.status().Leases); got != before {
			t.Fatalf("after restarting the coordinators leases and tokens = %s, want %s as before", got, before)
		}
	}
}

// leaseTokens lists each lease's id and fencing token, in order.
func leaseTokens(ls []gate.Lease) string {
	var b strings.Builder
	for _, l := range ls {
		fmt.Fprintf(&b, "%s:%d ", l.ID, l.FencingToken)
	}
	return b.String()
}

func equalHolders(got, want map[string]string) bool {
	if len(got) != len(want) {
		return false
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// TestClusterHeldWriteWakes: a worker on one clone writes a file checked
// out on the other; its write is held, and granted once the check-out is
// released there, through the shared table.
func TestClusterHeldWriteWakes(t *testing.T) {
	etcd := startEtcd(t, 3)
	a := newCheckout(t, map[string]string{"leasegate.json": clusterConfig(etcd, "wake"), "f.txt": "f\n"})
	b := cloneCheckout(t, a)
	a.host, b.host = "machine-a", "machine-b"
	a.startServer(retryAfter, idleAfter)
	b.startServer(retryAfter, idleAfter)
	a.mustLG("acquire", "--as", "alice", "f.txt")
	w := b.workerEnv("bob", "echo bob >> f.txt", "LEASEGATE_NO_START=1")
	eventually(t, 30*time.Second, "bob's write held on the other clone", func() bool {
		for _, c := range b.status().Contentions {
			if c.Requester == "bob" {
				return true
			}
		}
		return false
	})
	if out := b.mustLG("status"); !strings.Contains(out, "bob waits for f.txt held by alice on host machine-a") {
		t.Errorf("status on machine-b does not name the holder's machine:\n%s", out)
	}
	select {
	case <-w.done:
		t.Fatalf("bob's write of alice's file ended before she released it (exit %d): %s", w.code, w.out.String())
	default:
	}
	a.mustLG("release", "f.txt", "--as", "alice")
	if code := w.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("bob's worker: exit %d: %s", code, w.out.String())
	}
	if got := b.read("f.txt"); !strings.Contains(got, "bob") {
		t.Fatalf("f.txt on bob's clone = %q, want bob's line", got)
	}
}

// TestClusterMachineKilled: two machines (each clone's coordinator and
// workers in a UTS namespace with its own hostname) share the lease table
// with a 2 s session TTL. A worker on machine-a holds a file, a worker on
// machine-b waits for it; machine-a's coordinator and worker are killed
// with SIGKILL. machine-b reclaims the file after the session TTL, with the
// lost session as evidence, and its held write is granted.
func TestClusterMachineKilled(t *testing.T) {
	const ttl = 2 * time.Second
	etcd := startEtcd(t, 3)
	cfg := fmt.Sprintf(`{"cluster": {"endpoints": ["%s"], "workspace": "killed", "session_ttl": %q}}`,
		strings.Join(etcd.Endpoints, `", "`), ttl.String())
	a := newCheckout(t, map[string]string{"leasegate.json": cfg, "f.txt": "f\n"})
	b := cloneCheckout(t, a)
	// machine-b outlives the test: a long session TTL, so that a loaded
	// runner starving it of CPU for a moment does not end its session.
	keep := fmt.Sprintf(`{"cluster": {"endpoints": ["%s"], "workspace": "killed", "session_ttl": "15s"}}`,
		strings.Join(etcd.Endpoints, `", "`))
	if err := os.WriteFile(filepath.Join(b.dir, "leasegate.json"), []byte(keep), 0o644); err != nil {
		t.Fatal(err)
	}
	a.host, b.host = "machine-a", "machine-b"
	a.startServer(retryAfter, idleAfter)
	b.startServer(retryAfter, idleAfter)
	alice := a.workerEnv("alice", "echo alice > f.txt; sleep 600", "LEASEGATE_NO_START=1")
	eventually(t, 30*time.Second, "machine-b sees alice holding f.txt", func() bool { return b.holders()["f.txt"] == "alice" })
	bob := b.startEnv([]string{"LEASEGATE_NO_START=1"}, "run", "--as", "bob", "--retry-after", "60s", "--", "sh", "-c", "echo bob >> f.txt")
	eventually(t, 30*time.Second, "bob's write held on machine-b", func() bool {
		for _, c := range b.status().Contentions {
			if c.Requester == "bob" && c.Holder.Owner.Host == "machine-a" {
				return true
			}
		}
		return false
	})
	held := b.leaseOf(t, "f.txt")
	killedAt := time.Now()
	a.killServer()
	_ = alice.cmd.Process.Kill()
	if code := bob.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("bob's worker after machine-a was killed: exit %d: %s", code, bob.out.String())
	}
	if got := b.read("f.txt"); !strings.Contains(got, "bob") {
		t.Fatalf("f.txt on machine-b = %q, want bob's line", got)
	}
	var reclaimed *gate.Event
	for _, e := range b.history("") {
		if e.Type == gate.EventReclaimed && e.LeaseID == held.ID {
			reclaimed = &e
		}
	}
	if reclaimed == nil || !strings.Contains(string(reclaimed.Data), "machine-a lost its etcd session") {
		t.Fatalf("alice's lease reclaimed with the lost session as evidence: %+v", reclaimed)
	}
	// Reclaim time is the ledger's timestamp against the kill; the target
	// is the TTL plus 1 s (etcd expires a lease up to the TTL after its last
	// keep-alive, then the watch, the reclaim and its commit follow).
	if took := reclaimed.At.Sub(killedAt); took > ttl+time.Second {
		t.Errorf("alice's lease reclaimed %v after machine-a was killed, want at most %v", took, ttl+time.Second)
	} else {
		t.Logf("reclaimed %v after the kill (session TTL %v)", took.Round(10*time.Millisecond), ttl)
	}
}

// TestClusterWorkerExitWakes: a worker on machine-b waits for a file a
// worker on machine-a wrote; when machine-a's worker exits, its lease ends
// there and machine-b's held write is granted, long before its retry.
func TestClusterWorkerExitWakes(t *testing.T) {
	etcd := startEtcd(t, 3)
	a := newCheckout(t, map[string]string{"leasegate.json": clusterConfig(etcd, "exit"), "f.txt": "f\n"})
	b := cloneCheckout(t, a)
	a.host, b.host = "machine-a", "machine-b"
	a.startServer(retryAfter, idleAfter)
	b.startServer(retryAfter, idleAfter)
	_, stopAlice := a.holdingWorker(t, "alice", "f.txt")
	eventually(t, 30*time.Second, "machine-b sees alice holding f.txt", func() bool { return b.holders()["f.txt"] == "alice" })
	bob := b.startEnv([]string{"LEASEGATE_NO_START=1"}, "run", "--as", "bob", "--retry-after", "60s", "--", "sh", "-c", "echo bob >> f.txt")
	eventually(t, 30*time.Second, "bob's write held on machine-b", func() bool {
		for _, c := range b.status().Contentions {
			if c.Requester == "bob" {
				return true
			}
		}
		return false
	})
	stopAlice()
	if code := bob.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("bob's worker after alice's exited on machine-a: exit %d: %s", code, bob.out.String())
	}
	if got := b.read("f.txt"); !strings.Contains(got, "bob") {
		t.Fatalf("f.txt on machine-b = %q, want bob's line", got)
	}
}
