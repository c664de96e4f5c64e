package integration_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

// holdingWorker starts name's worker, which writes file (taking its auto
// lease) and then waits until the returned stop function is called.
func (r *repo) holdingWorker(t *testing.T, name, file string) (*worker, func()) {
	t.Helper()
	stop := filepath.Join(t.TempDir(), "stop")
	w := r.worker(name, "echo "+name+" > "+file+"; while [ ! -e "+stop+" ]; do sleep 0.1; done")
	eventually(t, 30*time.Second, name+" holds "+file, func() bool { return r.holders()[file] == name })
	return w, func() {
		if err := os.WriteFile(stop, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		w.wait(t, 30*time.Second)
	}
}

// leaseOf returns the active lease covering file.
func (r *repo) leaseOf(t *testing.T, file string) gate.Lease {
	t.Helper()
	for _, l := range r.status().Leases {
		for _, p := range l.Scope.Paths {
			if p == file {
				return l
			}
		}
	}
	t.Fatalf("no lease covers %s", file)
	return gate.Lease{}
}

// checkUntouched fails unless file's lease and content are as before.
func (r *repo) checkUntouched(t *testing.T, file string, l gate.Lease, body string) {
	t.Helper()
	if now := r.leaseOf(t, file); now.ID != l.ID || now.State != gate.StateActive || now.Owner.Name != l.Owner.Name {
		t.Errorf("lease on %s = %s of %s (%s), want %s of %s unchanged", file, now.ID, now.Owner.Name, now.State, l.ID, l.Owner.Name)
	}
	if got := r.read(file); got != body {
		t.Errorf("%s = %q, want %q", file, got, body)
	}
}

// TestWorkerCannotReleaseAnotherOwnersLease: while alice's worker holds
// f.txt, bob's worker runs `leasegate release f.txt --as alice` and then
// `--as alice` renews and check-ins: each is refused with exit 3 and
// OWNER_MISMATCH naming bob, and alice's lease is untouched.
func TestWorkerCannotReleaseAnotherOwnersLease(t *testing.T) {
	r := newRepo(t, map[string]string{"f.txt": "old\n"})
	_, stop := r.holdingWorker(t, "alice", "f.txt")
	defer stop()
	before := r.leaseOf(t, "f.txt")
	w := r.worker("bob", bin+" release f.txt --as alice; echo release=$?; "+
		bin+" renew f.txt --as alice; echo renew=$?; "+bin+" acquire g.txt --as alice; echo acquire=$?")
	w.wait(t, 30*time.Second)
	out := w.out.String()
	for _, want := range []string{"release=3", "renew=3", "acquire=3", "OWNER_MISMATCH", "runs under owner bob"} {
		if !strings.Contains(out, want) {
			t.Errorf("bob's worker output lacks %q:\n%s", want, out)
		}
	}
	r.checkUntouched(t, "f.txt", before, "alice\n")
	if h := r.holders(); h["g.txt"] != "" {
		t.Errorf("g.txt is held by %s, want no lease", h["g.txt"])
	}
}

// TestWorkerCannotUseAdminPowers: a worker that reads the admin token
// (as a coordinator with --listen keeps it) can neither evict nor resolve,
// through the CLI or with the token in a raw request; nothing changes.
func TestWorkerCannotUseAdminPowers(t *testing.T) {
	r := newRepo(t, map[string]string{"f.txt": "old\n"})
	ws, err := workspace.Find(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.AdminToken(); err != nil {
		t.Fatal(err)
	}
	_, stop := r.holdingWorker(t, "alice", "f.txt")
	defer stop()
	before := r.leaseOf(t, "f.txt")
	carol := r.worker("carol", "echo carol > f.txt")
	eventually(t, 30*time.Second, "carol's blocker", func() bool { return len(r.openBlockers()) == 1 })
	id := r.openBlockers()[0].ID
	raw := `python3 -c "
import socket,sys
s=socket.socket(socket.AF_UNIX); s.connect('` + ws.SocketPath() + `')
body=sys.argv[2].encode()
s.sendall(b'POST '+sys.argv[1].encode()+b' HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nX-Leasegate-Admin-Token: '+open('` + ws.AdminTokenPath() + `').read().strip().encode()+b'\r\nContent-Length: '+str(len(body)).encode()+b'\r\n\r\n'+body)
print(s.makefile('rb').read().decode())
" `
	w := r.worker("bob", bin+" evict f.txt --reason mine; echo evict=$?; "+
		bin+" resolve "+id+" --deny; echo resolve=$?; "+
		raw+`/v1/leases '{"op":"evict","owner":{"name":"bob"},"lease_id":"`+string(before.ID)+`","reason":"mine"}'; `+
		raw+`/v1/blockers/`+id+`/resolve '{"action":"retry"}'`)
	w.wait(t, 30*time.Second)
	out := w.out.String()
	if !strings.Contains(out, "evict=3") || !strings.Contains(out, "resolve=3") || strings.Count(out, "ADMIN_REQUIRED") < 4 {
		t.Errorf("bob's worker was not refused four times with ADMIN_REQUIRED:\n%s", out)
	}
	r.checkUntouched(t, "f.txt", before, "alice\n")
	if bs := r.openBlockers(); len(bs) != 1 || bs[0].ID != id {
		t.Errorf("open blockers = %v, want %s still open", bs, id)
	}
	r.mustLG("resolve", id, "--deny")
	carol.wait(t, 30*time.Second)
}

// TestWorkerGrandchildStaysItsOwner: a worker's grandchild that left its
// session (setsid) and whose parent exited (double fork) still acts only
// as the worker's owner: the sidecar is its subreaper.
func TestWorkerGrandchildStaysItsOwner(t *testing.T) {
	r := newRepo(t, map[string]string{"f.txt": "old\n"})
	_, stop := r.holdingWorker(t, "alice", "f.txt")
	defer stop()
	before := r.leaseOf(t, "f.txt")
	dir := t.TempDir()
	res, ppid, script := filepath.Join(dir, "res"), filepath.Join(dir, "ppid"), filepath.Join(dir, "grandchild.sh")
	body := "sleep 0.5\nps -o ppid= -p $$ > " + ppid + "\n" + bin + " release f.txt --as alice > " + res + ".tmp 2>&1\necho code=$? >> " + res + ".tmp\nmv " + res + ".tmp " + res + "\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	// setsid: a new session; the inner sh backgrounds the grandchild and
	// exits at once, so the grandchild is re-parented before it asks.
	w := r.worker("bob", "setsid sh -c 'sh "+script+" & exit 0'; while [ ! -e "+res+" ]; do sleep 0.1; done")
	w.wait(t, 30*time.Second)
	got, _ := os.ReadFile(res)
	if !strings.Contains(string(got), "code=3") || !strings.Contains(string(got), "runs under owner bob") {
		t.Errorf("the grandchild's release --as alice said:\n%s\nwant exit 3, OWNER_MISMATCH naming bob", got)
	}
	if p, _ := os.ReadFile(ppid); strings.TrimSpace(string(p)) == "1" {
		t.Errorf("the grandchild was re-parented to init, not to the sidecar")
	}
	r.checkUntouched(t, "f.txt", before, "alice\n")
}

// TestOperatorKeepsEveryPower: from a plain shell the same user releases
// another owner's lease, evicts and resolves without any token, and the
// ledger and history name the process that did it.
func TestOperatorKeepsEveryPower(t *testing.T) {
	r := newRepo(t, map[string]string{"f.txt": "old\n", "g.txt": "old\n"})
	_, stop := r.holdingWorker(t, "alice", "f.txt")
	defer stop()
	r.mustLG("acquire", "g.txt", "--as", "carol")
	r.mustLG("release", "f.txt", "--as", "alice")
	r.mustLG("evict", "g.txt", "--reason", "stale")
	for file, typ := range map[string]gate.EventType{"f.txt": gate.EventReleased, "g.txt": gate.EventEvicted} {
		var by *gate.Operator
		for _, e := range r.history(file) {
			if e.Type == typ {
				by = e.By
			}
		}
		if by == nil || by.PID <= 0 || by.Comm != "leasegate" || by.Source != "SO_PEERCRED" {
			t.Errorf("%s of %s recorded by %+v, want the leasegate process (SO_PEERCRED)", typ, file, by)
		}
	}
	out := r.mustLG("history", "g.txt")
	if !strings.Contains(out, "[operator leasegate pid ") || !strings.Contains(out, "(SO_PEERCRED)]") {
		t.Errorf("history does not name the operator's process:\n%s", out)
	}
}

// TestWorkerReleasesItsOwnLease: a worker releases, under its own name,
// the lease it took.
func TestWorkerReleasesItsOwnLease(t *testing.T) {
	r := newRepo(t, map[string]string{"f.txt": "old\n"})
	stop := filepath.Join(t.TempDir(), "stop")
	w := r.worker("alice", "echo new > f.txt && "+bin+" release f.txt; echo release=$?; while [ ! -e "+stop+" ]; do sleep 0.1; done")
	eventually(t, 30*time.Second, "alice's release", func() bool { return strings.Contains(w.out.String(), "release=") })
	if !strings.Contains(w.out.String(), "release=0") {
		t.Errorf("alice's worker could not release its own lease:\n%s", w.out)
	}
	if h := r.holders()["f.txt"]; h != "" {
		t.Errorf("f.txt held by %s after its release", h)
	}
	_ = os.WriteFile(stop, nil, 0o600)
	w.wait(t, 30*time.Second)
}

// TestCheckoutOutlivesTheNamesRun: a name that once ran a worker checks a
// file out from the shell; the old run process being gone does not end the
// check-out, and the next writer is held, not granted.
func TestCheckoutOutlivesTheNamesRun(t *testing.T) {
	r := newRepo(t, map[string]string{"g.txt": "old\n"})
	if code := r.worker("alice", "true").wait(t, 30*time.Second); code != 0 {
		t.Fatalf("alice's run exited %d", code)
	}
	r.mustLG("acquire", "g.txt", "--as", "alice")
	before := r.leaseOf(t, "g.txt")
	bob := r.worker("bob", "echo bob > g.txt")
	eventually(t, 30*time.Second, "bob's write is blocked", func() bool { return len(r.openBlockers()) == 1 })
	r.checkUntouched(t, "g.txt", before, "old\n")
	r.mustLG("resolve", r.openBlockers()[0].ID, "--deny")
	bob.wait(t, 30*time.Second)
	r.checkUntouched(t, "g.txt", before, "old\n")
	for _, e := range r.history("g.txt") {
		if e.Type == gate.EventReclaimed {
			t.Errorf("alice's check-out was reclaimed: %s", e.Reason)
		}
	}
}
