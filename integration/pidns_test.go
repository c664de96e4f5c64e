//go:build linux

package integration_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
)

// unshareArgs returns the unshare command line that runs a command in a
// pid namespace of its own with its own /proc: as root, or in a user
// namespace where root is not available. It skips the test if neither
// works here.
func unshareArgs(t *testing.T) []string {
	t.Helper()
	args := []string{"unshare", "--pid", "--fork", "--mount-proc", "--kill-child"}
	if os.Geteuid() != 0 {
		args = []string{"unshare", "-Urp", "--fork", "--mount-proc", "--kill-child"}
	}
	if out, err := exec.Command(args[0], append(args[1:], "true")...).CombinedOutput(); err != nil {
		t.Skipf("%s: %v: %s (no pid namespaces here, as root or in a user namespace)", strings.Join(args, " "), err, out)
	}
	return args
}

// nsWorker starts `leasegate run --as name -- sh -c script` in a pid
// namespace of its own, where the sidecar is pid 1.
func (r *repo) nsWorker(t *testing.T, name, script string) *worker {
	t.Helper()
	argv := append(unshareArgs(t), bin, "run", "--as", name, "--", "sh", "-c", script)
	w := &worker{out: &syncBuffer{}, done: make(chan struct{})}
	w.cmd = exec.Command(argv[0], argv[1:]...)
	w.cmd.Dir, w.cmd.Env = r.dir, r.env
	w.cmd.Stdout, w.cmd.Stderr = w.out, w.out
	w.cmd.WaitDelay = time.Second
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = w.cmd.Wait()
		w.code = w.cmd.ProcessState.ExitCode()
		close(w.done)
	}()
	t.Cleanup(func() {
		_ = w.cmd.Process.Kill() // --kill-child: the namespace ends with it
		<-w.done
	})
	return w
}

// TestNamespacedWorkerSeenFromHost: a coordinator on the host sees a
// worker in its own pid namespace by its real pid (which the worker
// cannot report: its own is 1), watches it through a pidfd, and frees its
// file at once when it is killed, saying so.
func TestNamespacedWorkerSeenFromHost(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	w := r.nsWorker(t, "inner", "echo x >> a.txt; sleep 60")
	eventually(t, 15*time.Second, "inner to lease a.txt", func() bool { return r.holders()["a.txt"] == "inner" })
	var sidecar int
	eventually(t, 10*time.Second, "the sidecar under unshare", func() bool {
		kids := childrenOf(t, w.cmd.Process.Pid)
		if len(kids) == 1 {
			sidecar = kids[0]
		}
		return sidecar != 0
	})
	o, _ := r.ownerView("inner")
	if o.PID != 1 || o.SeenPID != sidecar || o.Liveness.Status != gate.Alive || !strings.Contains(strings.Join(o.Liveness.Evidence, "; "), "pidfd: pid ") {
		t.Fatalf("status of inner: reported pid %d, seen pid %d, %s %q; want reported 1, seen %d, alive by pidfd",
			o.PID, o.SeenPID, o.Liveness.Status, o.Liveness.Evidence, sidecar)
	}
	killed := time.Now()
	if err := syscall.Kill(sidecar, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "reclaim of a.txt", func() bool { return r.holders()["a.txt"] == "" })
	var reclaim gate.Event
	for _, e := range r.history("a.txt") {
		if e.Type == gate.EventReclaimed {
			reclaim = e
		}
	}
	took := reclaim.At.Sub(killed)
	t.Logf("reclaimed %s after kill -9 (ledger time): %s", took.Round(time.Millisecond), reclaim.Reason)
	if !strings.Contains(reclaim.Reason, "pidfd: pid ") || !strings.Contains(reclaim.Reason, "registered as pid 1") {
		t.Fatalf("reclaim evidence %q, want the pidfd's, naming the registered pid", reclaim.Reason)
	}
	if took > 2*time.Second { // the contract's second, with slack for a loaded machine
		t.Fatalf("reclaimed %s after kill -9", took)
	}
}

// TestNamespacedCoordinatorSparesHostWorkers: a worker in its own pid
// namespace starts the coordinator, which then lives in that namespace and
// cannot see a worker on the host. Status says so, and the host worker,
// judged by its heartbeat, keeps its file.
func TestNamespacedCoordinatorSparesHostWorkers(t *testing.T) {
	r := bareRepo(t)
	r.write("a.txt", "a\n")
	r.write("b.txt", "b\n")
	r.git("add", "-A")
	r.git("commit", "-qm", "files")
	inner := r.nsWorker(t, "inner", "echo x >> a.txt; sleep 60")
	innerHoldsA(t, r)
	st := r.status()
	if st.PidNS.Host || !strings.Contains(st.PidNS.Note, "leasegate serve") {
		t.Fatalf("status of a coordinator in a private pid namespace: %+v, want it said, with the fix", st.PidNS)
	}
	if !strings.Contains(inner.out.String(), "started the coordinator in pid namespace "+st.PidNS.ID) {
		t.Fatalf("the command that started the coordinator did not say where:\n%s", inner.out)
	}
	out := r.mustLG("status")
	if !strings.Contains(out, "pid namespace "+st.PidNS.ID) {
		t.Fatalf("status text does not name the private pid namespace:\n%s", out)
	}
	host := r.worker("host", "echo y >> b.txt; sleep 30")
	eventually(t, 10*time.Second, "host to lease b.txt", func() bool { return r.holders()["b.txt"] == "host" })
	time.Sleep(10 * time.Second)
	if got := r.holders()["b.txt"]; got != "host" {
		t.Fatalf("b.txt held by %q 10 s later, want host; history %+v\nhost worker:\n%s", got, r.history("b.txt"), host.out)
	}
	if hasEvent(r.history("b.txt"), gate.EventReclaimed) {
		t.Fatal("the host worker's lease was reclaimed")
	}
	o, _ := r.ownerView("host")
	if o.Liveness.Status != gate.Alive || !strings.Contains(strings.Join(o.Liveness.Evidence, "; "), "outside the coordinator's pid namespace") {
		t.Fatalf("host owner judged %s %q, want alive by heartbeat, saying why", o.Liveness.Status, o.Liveness.Evidence)
	}
}

// TestLostRegistrationRegistersAgain: a coordinator started again on a
// fresh ledger knows no owner; the worker's sidecar registers again, says
// so, and its next write is gated (leased), not ungated.
func TestLostRegistrationRegistersAgain(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	w := r.workerEnv("alice", "echo x >> a.txt; while [ ! -e build/go ]; do sleep 0.05; done; echo y >> b.txt; sleep 5",
		"LEASEGATE_NO_START=1")
	eventually(t, 10*time.Second, "alice's lease", func() bool { return r.holders()["a.txt"] == "alice" })
	r.killServer()
	ledgers, _ := filepath.Glob(filepath.Join(r.dir, ".git", "leasegate", "ledger.db*"))
	for _, f := range ledgers {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	r.startServer(retryAfter, idleAfter)
	eventually(t, 15*time.Second, "alice registered again", func() bool { _, ok := r.ownerView("alice"); return ok })
	r.write("build/go", "")
	eventually(t, 15*time.Second, "alice's write of b.txt, leased", func() bool { return r.holders()["b.txt"] == "alice" })
	if !strings.Contains(w.out.String(), "registered again") {
		t.Fatalf("the worker was not told:\n%s", w.out)
	}
	for _, u := range r.status().Ungated {
		if u.Path == "b.txt" {
			t.Fatalf("b.txt written ungated: %+v", u)
		}
	}
}

// TestRestartedCoordinatorWatchesTheSameProcess: what the coordinator
// identified of an owner's process is in the ledger: started again, it
// watches the same process by pidfd, and frees its file at once when it is
// killed.
func TestRestartedCoordinatorWatchesTheSameProcess(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	w := r.workerEnv("alice", "echo x >> a.txt; sleep 60", "LEASEGATE_NO_START=1")
	eventually(t, 10*time.Second, "alice's lease", func() bool { return r.holders()["a.txt"] == "alice" })
	r.killServer()
	r.startServer(retryAfter, idleAfter)
	o, _ := r.ownerView("alice")
	if o.SeenPID != w.cmd.Process.Pid || !strings.Contains(strings.Join(o.Liveness.Evidence, "; "), "pidfd: pid ") {
		t.Fatalf("after a restart alice is seen as pid %d (%q), want %d by pidfd", o.SeenPID, o.Liveness.Evidence, w.cmd.Process.Pid)
	}
	_ = w.cmd.Process.Kill()
	eventually(t, 10*time.Second, "reclaim of a.txt", func() bool { return r.holders()["a.txt"] == "" })
	if !slices.ContainsFunc(r.history("a.txt"), func(e gate.Event) bool {
		return e.Type == gate.EventReclaimed && strings.Contains(e.Reason, "pidfd: pid ")
	}) {
		t.Fatalf("no reclaim by pidfd after the restart: %+v", r.history("a.txt"))
	}
}

// TestStatusFromHostNamesNamespacedCoordinatorByHostPid: status run on the
// host, of a coordinator a worker started in its own pid namespace, gives
// the coordinator's pid as the host knows it (the pid it reports itself is
// another process's on the host, a kernel thread's, say), with its pid in
// its own namespace beside it; an operator's act from the host is refused
// with the command that does it inside that namespace, which works.
func TestStatusFromHostNamesNamespacedCoordinatorByHostPid(t *testing.T) {
	r, cl := innerCoordinatorRepo(t)
	h, err := cl.Health(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	out := r.mustLG("status")
	m := regexp.MustCompile(`coordinator pid (\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("status names no coordinator pid:\n%s", out)
	}
	cmdline, _ := os.ReadFile("/proc/" + m[1] + "/cmdline")
	if !strings.Contains(string(cmdline), "serve") {
		t.Fatalf("status names the coordinator as pid %s, which on the host is %q, not the coordinator:\n%s", m[1], cmdline, out)
	}
	if want := fmt.Sprintf("pid %d in its pid namespace", h.PID); !strings.Contains(out, want) {
		t.Fatalf("status does not give the coordinator's own pid (%q):\n%s", want, out)
	}
	// An operator's act from the host is refused, saying how to do it;
	// done so, it is taken.
	_, errs, code := r.lg("evict", "a.txt", "--reason", "stuck")
	if code != 3 || !strings.Contains(errs, "nsenter --target PID --all --wdns="+r.dir+" leasegate evict") {
		t.Fatalf("evict from the host: exit %d, %s; want ADMIN_REQUIRED (exit 3) saying how to evict from inside the namespace", code, errs)
	}
	if out, err := exec.Command("nsenter", "--target", m[1], "--all", "--wdns="+r.dir, bin, "evict", "a.txt", "--reason", "stuck").CombinedOutput(); err != nil {
		t.Fatalf("evict through nsenter, as the refusal says: %v: %s", err, out)
	}
	if got := r.holders()["a.txt"]; got != "" {
		t.Fatalf("a.txt held by %q after its eviction through nsenter", got)
	}
}

// innerCoordinatorRepo is a checkout whose coordinator the worker inner
// started in a pid namespace of its own, inner holding a.txt, and the
// client that reaches it.
func innerCoordinatorRepo(t *testing.T) (*repo, *api.Client) {
	t.Helper()
	r := bareRepo(t)
	r.write("a.txt", "a\n")
	r.git("add", "-A")
	r.git("commit", "-qm", "files")
	r.nsWorker(t, "inner", "echo x >> a.txt; sleep 60")
	return r, innerHoldsA(t, r)
}

// innerHoldsA makes r's client one that tries the coordinator's socket
// once a call (the coordinator is started by the worker in its namespace,
// and may not run yet), and waits until the worker inner leases a.txt.
func innerHoldsA(t *testing.T, r *repo) *api.Client {
	t.Helper()
	cl, err := api.NewClient(api.ClientConfig{Socket: filepath.Join(r.dir, ".git", "leasegate", "coord.sock"), RetryMax: 1})
	if err != nil {
		t.Fatal(err)
	}
	r.client = cl
	eventually(t, 20*time.Second, "inner to lease a.txt", func() bool {
		_, err := cl.Health(t.Context())
		return err == nil && r.holders()["a.txt"] == "inner"
	})
	return cl
}

// TestStopFromAChildPidNamespaceSignalsNothing: a shell in a pid namespace
// below the coordinator's (a container's, on a host whose coordinator
// serves the checkout) cannot see the coordinator's process. status says
// so rather than give the coordinator's own pid as if it were this
// namespace's, and serve --stop refuses, saying where it can be done,
// rather than send SIGTERM to whichever process has that pid here (a
// decoy made to have it).
func TestStopFromAChildPidNamespaceSignalsNothing(t *testing.T) {
	r := newRepo(t, nil)
	h, err := r.client.Health(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	script := `echo $(($1 - 1)) > /proc/sys/kernel/ns_last_pid && { sleep 60 & decoy=$!; }
echo "decoy $decoy"
"$0" status
"$0" serve --stop --force; echo "stop exit $?"
kill -0 $decoy && echo "decoy alive"`
	argv := append(unshareArgs(t), "sh", "-c", script, bin, strconv.Itoa(h.PID))
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = r.dir, r.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", argv, err, out)
	}
	if !strings.Contains(string(out), fmt.Sprintf("decoy %d\n", h.PID)) {
		t.Skipf("no decoy with the coordinator's pid %d in the namespace (ns_last_pid not writable here):\n%s", h.PID, out)
	}
	if !strings.Contains(string(out), "decoy alive") {
		t.Errorf("serve --stop in a child pid namespace signalled this namespace's pid %d, not the coordinator:\n%s", h.PID, out)
	}
	if want := fmt.Sprintf("coordinator pid %d in its pid namespace (not visible from this one)", h.PID); !strings.Contains(string(out), want) {
		t.Errorf("status in a child pid namespace does not say %q:\n%s", want, out)
	}
	if !strings.Contains(string(out), "stop exit 1") || !strings.Contains(string(out), "cannot see into") {
		t.Errorf("serve --stop in a child pid namespace: want exit 1 saying it cannot see the coordinator:\n%s", out)
	}
	if _, err := r.client.Health(t.Context()); err != nil {
		t.Errorf("the coordinator stopped answering: %v", err)
	}
}

// TestLedgerRefusalsFromAChildPidNamespace: ledger check, serve, and a
// command refused with LEDGER_MISMATCH, run in a pid namespace below the
// coordinator's, name its pid as status does there (not visible from this
// one) rather than give its own pid as if it were this namespace's.
func TestLedgerRefusalsFromAChildPidNamespace(t *testing.T) {
	r := newRepo(t, nil)
	h, err := r.client.Health(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	script := `"$0" ledger check
"$0" serve
LEASEGATE_CLUSTER='{"endpoints": ["http://127.0.0.1:9"], "workspace": "elsewhere"}' "$0" status`
	argv := append(unshareArgs(t), "sh", "-c", script, bin)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = r.dir, r.env
	out, _ := cmd.CombinedOutput()
	seen := fmt.Sprintf("pid %d in its pid namespace (not visible from this one)", h.PID)
	for _, want := range []string{"stop the coordinator first: another coordinator, " + seen + ", serves this workspace",
		"could not start: another coordinator, " + seen + ", serves this workspace",
		"but the coordinator, " + seen + ", of " + r.dir} {
		if !strings.Contains(string(out), want) {
			t.Errorf("ledger check and a mismatched LEASEGATE_CLUSTER in a child pid namespace do not say %q:\n%s", want, out)
		}
	}
}

// TestStopFromHostNamesTheWayIn: `serve --stop` from the host, of a
// coordinator a worker started in its own pid namespace, is refused as an
// operator's act (the coordinator cannot see the host's processes) with
// the command that does it from inside that namespace, which works.
func TestStopFromHostNamesTheWayIn(t *testing.T) {
	r, _ := innerCoordinatorRepo(t)
	_, errs, code := r.lg("serve", "--stop", "--force")
	m := regexp.MustCompile(`from inside that namespace: (nsenter --target (\d+) [^\n]*?) --wdns=(.*) leasegate serve --stop`).FindStringSubmatch(errs)
	if code != 3 || m == nil || m[3] != r.dir {
		t.Fatalf("serve --stop from the host: exit %d, %s; want ADMIN_REQUIRED (exit 3) with the nsenter command that stops it", code, errs)
	}
	argv := append(strings.Fields(m[1]), "--wdns="+r.dir, bin, "serve", "--stop", "--force")
	if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%q, as the refusal says: %v: %s", argv, err, out)
	}
	if _, err := r.client.Health(t.Context()); err == nil {
		t.Fatal("the coordinator still answers after serve --stop through nsenter")
	}
}
