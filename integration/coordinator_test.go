package integration_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// TestRaceForFiles: 20 client processes race to check out the same 10
// files over the real socket. Every file has exactly one holder, fencing
// tokens are unique, and every loser is told the holder's name.
func TestRaceForFiles(t *testing.T) {
	r := newRepo(t, nil)
	const clients, files = 20, 10
	var wg sync.WaitGroup
	type answer struct {
		client, file, stdout, stderr string
		code                         int
	}
	answers := make(chan answer, clients*files)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("c%02d", c)
			for f := range files {
				file := fmt.Sprintf("f%02d.txt", (f+c)%files)
				out, errs, code := r.lg("acquire", "--as", name, file, "--json")
				answers <- answer{name, file, out, errs, code}
			}
		}()
	}
	wg.Wait()
	close(answers)
	winners := map[string]string{}
	tokens := map[uint64]string{}
	for a := range answers {
		switch a.code {
		case 0:
			var res leasegate.LeaseResult
			mustJSON(t, a.stdout, &res)
			if prev, ok := winners[a.file]; ok {
				t.Fatalf("%s granted to %s and %s", a.file, prev, a.client)
			}
			winners[a.file] = a.client
			for _, l := range res.Leases {
				if prev, ok := tokens[l.FencingToken]; ok {
					t.Fatalf("fencing token %d granted twice (%s, %s)", l.FencingToken, prev, a.client)
				}
				tokens[l.FencingToken] = a.client
			}
		case 3:
			if !strings.Contains(a.stderr, "held by c") {
				t.Errorf("loser %s on %s was not told the holder: %q", a.client, a.file, a.stderr)
			}
		default:
			t.Errorf("acquire %s by %s: exit %d: %s", a.file, a.client, a.code, a.stderr)
		}
	}
	if len(winners) != files {
		t.Fatalf("%d files have a holder, want %d", len(winners), files)
	}
	for file, owner := range r.holders() {
		if winners[file] != owner {
			t.Errorf("%s: coordinator says %s holds it, the CLI told %s", file, owner, winners[file])
		}
	}
	// Every loser's message named the actual winner.
}

// TestCoordinatorKill9 kills the coordinator with SIGKILL during a burst of
// grants; after a restart every acknowledged grant is still there, the
// ledger replays, and no path has two holders.
func TestCoordinatorKill9(t *testing.T) {
	r := newRepo(t, nil)
	ctx := context.Background()
	if err := r.client.Register(ctx, leasegate.Registration{Owner: gate.Owner{Name: "burst"}}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	acked := map[gate.LeaseID]string{}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				p := fmt.Sprintf("burst/g%d/f%05d.txt", g, i)
				res, err := r.client.Mutate(ctx, leasegate.MutateRequest{Owner: "burst", Op: "create", Paths: []string{p}})
				if err != nil {
					return // the coordinator is gone
				}
				mu.Lock()
				for _, l := range res.Leases {
					acked[l.ID] = p
				}
				mu.Unlock()
			}
		}()
	}
	time.Sleep(700 * time.Millisecond)
	r.killServer()
	close(stop)
	wg.Wait()
	if len(acked) < 50 {
		t.Fatalf("only %d grants acknowledged before the kill; the burst did not run", len(acked))
	}
	r.startServer(retryAfter, idleAfter)
	st := r.status()
	have := map[gate.LeaseID]gate.Lease{}
	seen := map[string]gate.LeaseID{}
	for _, l := range st.Leases {
		have[l.ID] = l
		for _, p := range l.Scope.Paths {
			if prev, ok := seen[p]; ok {
				t.Fatalf("%s held by two leases after restart: %s and %s", p, prev, l.ID)
			}
			seen[p] = l.ID
		}
	}
	for id, p := range acked {
		l, ok := have[id]
		if !ok {
			t.Fatalf("acknowledged grant %s of %s lost in the crash", id, p)
		}
		if l.Scope.Paths[0] != p {
			t.Fatalf("lease %s covers %v, want %s", id, l.Scope.Paths, p)
		}
	}
	t.Logf("%d acknowledged grants survived kill -9; %d leases after replay", len(acked), len(st.Leases))
}

// TestOwnerKilledIsReclaimed: a worker whose sidecar is killed with SIGKILL
// loses its lease within a second, with the evidence recorded; a waiting
// worker then gets the file at its retry.
func TestOwnerKilledIsReclaimed(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	holder := r.worker("holder", "echo h >> a.txt; sleep 60")
	eventually(t, 5*time.Second, "holder to lease a.txt", func() bool { return r.holders()["a.txt"] == "holder" })
	waiter := r.worker("waiter", "echo w >> a.txt")
	eventually(t, 5*time.Second, "waiter contention", func() bool { return len(r.status().Contentions) == 1 })
	killed := time.Now()
	_ = holder.cmd.Process.Kill()
	eventually(t, 1500*time.Millisecond, "reclaim of a.txt", func() bool { return r.holders()["a.txt"] != "holder" })
	t.Logf("reclaimed %s after kill -9", time.Since(killed).Round(time.Millisecond))
	if code := waiter.wait(t, 10*time.Second); code != 0 {
		t.Fatalf("waiter exit %d:\n%s", code, waiter.out)
	}
	if !strings.HasSuffix(r.read("a.txt"), "w\n") {
		t.Fatalf("waiter's write missing: %q", r.read("a.txt"))
	}
	var reclaim *gate.Event
	for _, e := range r.history("a.txt") {
		if e.Type == gate.EventReclaimed {
			reclaim = &e
		}
	}
	if reclaim == nil || !strings.Contains(reclaim.Reason, "pidfd: pid ") || !strings.Contains(reclaim.Reason, "exited") {
		t.Fatalf("no reclaim with the pidfd's evidence in the history: %+v", reclaim)
	}
}

// TestBadInput sends malformed and hostile requests over the real socket:
// each gets a clear error and changes nothing.
func TestBadInput(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	if err := os.Symlink("/etc", filepath.Join(r.dir, "etc-link")); err != nil {
		t.Fatal(err)
	}
	// The coordinator's watcher records the new link as an ungated write;
	// let it, so that only the bad input could change the ledger below.
	eventually(t, 10*time.Second, "the watcher reports etc-link", func() bool {
		for _, u := range r.status().Ungated {
			if u.Path == "etc-link" {
				return true
			}
		}
		return false
	})
	r.mustLG("acquire", "--as", "alice", "a.txt")
	before := r.status().LastSeq
	sock := filepath.Join(r.dir, ".git", "leasegate", "coord.sock")
	long := strings.Repeat("x", 129)
	cases := []struct {
		name, method, path, body string
		header                   map[string]string
		status                   int
		code                     string
	}{
		{"malformed json", "POST", "/v1/mutations", `{"owner":`, nil, 400, "INPUT_SCHEMA_INVALID"},
		{"unknown field", "POST", "/v1/mutations", `{"owner":"alice","paths":["a.txt"],"sneaky":1}`, nil, 400, "INPUT_SCHEMA_INVALID"},
		{"trailing data", "POST", "/v1/owners", `{"name":"x"} {"name":"y"}`, nil, 400, "INPUT_SCHEMA_INVALID"},
		{"absolute path", "POST", "/v1/leases", `{"op":"acquire","owner":{"name":"bob"},"scope":{"type":"file","paths":["/etc/passwd"]}}`, nil, 400, "PATH_OUTSIDE_WORKSPACE"},
		{"dot-dot escape", "POST", "/v1/leases", `{"op":"acquire","owner":{"name":"bob"},"scope":{"type":"file","paths":["../x"]}}`, nil, 400, "PATH_OUTSIDE_WORKSPACE"},
		{"symlink escape", "POST", "/v1/leases", `{"op":"acquire","owner":{"name":"bob"},"scope":{"type":"file","paths":["etc-link/passwd"]}}`, nil, 400, "PATH_OUTSIDE_WORKSPACE"},
		{"10 MB body", "POST", "/v1/mutations", `{"owner":"` + strings.Repeat("a", 10<<20) + `"}`, nil, 413, "REQUEST_TOO_LARGE"},
		{"id over 128 bytes", "GET", "/v1/leases/" + long, "", nil, 400, "INPUT_SCHEMA_INVALID"},
		{"owner over 128 bytes", "POST", "/v1/owners", `{"name":"` + long + `"}`, nil, 400, "INPUT_SCHEMA_INVALID"},
		{"wrong token", "POST", "/v1/leases", `{"op":"release","owner":{"name":"alice"},"lease_id":"LEASE","token":999}`, nil, 403, "LEASE_TOKEN_INVALID"},
		{"wrong owner", "POST", "/v1/leases", `{"op":"release","owner":{"name":"mallory"},"lease_id":"LEASE","token":1}`, nil, 403, "OWNER_MISMATCH"},
		{"unknown endpoint", "GET", "/v1/nope", "", nil, 404, "LEASE_NOT_FOUND"},
	}
	lease := r.status().Leases[0]
	hc := unixHTTP(sock)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := strings.ReplaceAll(tc.body, "LEASE", string(lease.ID))
			req, _ := http.NewRequest(tc.method, "http://x"+tc.path, strings.NewReader(body))
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var b bytes.Buffer
			_, _ = b.ReadFrom(resp.Body)
			if resp.StatusCode != tc.status || !strings.Contains(b.String(), `"code":"`+tc.code+`"`) {
				t.Fatalf("%s %s = %d %s, want %d %s", tc.method, tc.path, resp.StatusCode, b.String(), tc.status, tc.code)
			}
		})
	}
	if after := r.status().LastSeq; after != before {
		t.Fatalf("bad input changed the ledger: last seq %d -> %d", before, after)
	}
	if h := r.holders(); h["a.txt"] != "alice" || len(h) != 1 {
		t.Fatalf("leases changed: %v", h)
	}
	_, errs, code := r.lg("acquire", "--as", "bob", "etc-link/passwd")
	if code != 2 || !strings.Contains(errs, "outside the workspace") {
		t.Fatalf("CLI symlink escape: exit %d %q, want 2 and 'outside the workspace'", code, errs)
	}
}

func unixHTTP(sock string) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}}
}

// TestCheckoutLifecycle drives the operator commands over the CLI:
// acquire, overlap refusal, renew, checkin, evict with notice, history.
func TestCheckoutLifecycle(t *testing.T) {
	r := newRepo(t, map[string]string{"docs/api.md": "x\n", "src/a.go": "package a\n"})
	out := r.mustLG("acquire", "--as", "alice", "docs/**", "--json")
	var res leasegate.LeaseResult
	mustJSON(t, out, &res)
	id := res.Leases[0].ID
	if got := res.Leases[0].ExpiresAt.Sub(res.Leases[0].AcquiredAt); got != gate.DefaultCheckoutTTL {
		t.Fatalf("default ttl %s, want 72h", got)
	}
	if _, errs, code := r.lg("acquire", "--as", "bob", "docs/api.md"); code != 3 || !strings.Contains(errs, "alice") {
		t.Fatalf("overlapping acquire: exit %d %q, want 3 naming alice", code, errs)
	}
	r.mustLG("acquire", "--as", "bob", "src/*")
	if _, errs, code := r.lg("checkin", string(id), "--as", "bob"); code != 3 || !strings.Contains(errs, "OWNER_MISMATCH") {
		t.Fatalf("checkin by bob: exit %d %q", code, errs)
	}
	r.mustLG("renew", string(id), "--as", "alice", "--ttl", "100h")
	r.mustLG("checkin", string(id), "--as", "alice")
	if _, errs, code := r.lg("checkin", string(id), "--as", "alice"); code != 3 || !strings.Contains(errs, "LEASE_ALREADY_TERMINAL") {
		t.Fatalf("second checkin: exit %d %q", code, errs)
	}
	bobs := r.status().Leases[0].ID
	r.mustLG("evict", string(bobs), "--reason", "emergency maintenance")
	if _, errs, code := r.lg("checkin", string(bobs), "--as", "bob"); code != 3 || !strings.Contains(errs, "LEASE_EVICTED") {
		t.Fatalf("checkin after eviction: exit %d %q", code, errs)
	}
	// By a path the lease covered, the eviction is said as by its id; to
	// another owner the path is no lease of theirs.
	for _, c := range []struct {
		cmd, owner, want string
		code             int
	}{
		{"checkin", "bob", "LEASE_EVICTED", 3}, {"release", "bob", "LEASE_EVICTED", 3}, {"renew", "bob", "LEASE_EVICTED", 3}, {"checkin", "carol", "LEASE_NOT_FOUND", 2},
	} {
		if _, errs, code := r.lg(c.cmd, "src/a.go", "--as", c.owner); code != c.code || !strings.Contains(errs, c.want) || c.code == 3 && !strings.Contains(errs, string(bobs)) {
			t.Errorf("%s src/a.go --as %s after eviction: exit %d %q, want %d and %s", c.cmd, c.owner, code, errs, c.code, c.want)
		}
	}
	hist := r.mustLG("history", string(bobs))
	for _, want := range []string{"lease.granted", "lease.evicted", "emergency maintenance", "notice"} {
		if !strings.Contains(hist, want) {
			t.Errorf("history of %s lacks %q:\n%s", bobs, want, hist)
		}
	}
	hist = r.mustLG("history", string(id))
	for _, want := range []string{"lease.granted", "lease.renewed", "lease.completed"} {
		if !strings.Contains(hist, want) {
			t.Errorf("history of %s lacks %q:\n%s", id, want, hist)
		}
	}
}

// TestEventsFollow streams events while a lease is taken.
func TestEventsFollow(t *testing.T) {
	r := newRepo(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "events", "--follow", "--after", fmt.Sprint(r.status().LastSeq))
	cmd.Dir, cmd.Env = r.dir, r.env
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); _ = cmd.Wait() }()
	time.Sleep(200 * time.Millisecond)
	r.mustLG("acquire", "--as", "alice", "x.txt")
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var e gate.Event
		mustJSON(t, sc.Text(), &e)
		if e.Type == gate.EventGranted && e.Lease.Scope.Paths[0] == "x.txt" {
			return
		}
	}
	t.Fatal("no lease.granted event for x.txt on the stream")
}
