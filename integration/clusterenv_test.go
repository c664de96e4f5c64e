package integration_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestClusterFromEnv: a clone whose leasegate.json names no cluster joins
// the lease table another clone's leasegate.json names on etcd when
// LEASEGATE_CLUSTER names it for its commands: the coordinator its
// acquire starts serves the shared table, so bob's acquire is refused
// naming alice and her machine; status says which ledger it serves and
// what named it, and `ledger check` reads the shared ledger.
func TestClusterFromEnv(t *testing.T) {
	etcd := startEtcd(t, 1)
	a := newCheckout(t, map[string]string{"f.txt": "f\n"})
	b := cloneCheckout(t, a)
	a.write("leasegate.json", clusterConfig(etcd, "from-env"))
	b.env = append(b.env, "LEASEGATE_CLUSTER="+clusterValue(etcd, "from-env"))
	a.host, b.host = "machine-a", "machine-b"

	a.mustLG("acquire", "f.txt", "--as", "alice")
	t.Cleanup(func() { a.lg("serve", "--stop", "--force") })
	t.Cleanup(func() { b.lg("serve", "--stop", "--force") })
	out, errs, code := b.lg("acquire", "f.txt", "--as", "bob")
	if code != 3 || !strings.Contains(errs, "held by alice on host machine-a") {
		t.Fatalf("bob's acquire in the clone with %s: exit %d, want 3 naming alice on machine-a\nstdout: %s\nstderr: %s",
			"LEASEGATE_CLUSTER", code, out, errs)
	}

	var st struct {
		Coordinator struct {
			Ledger struct {
				Workspace string `json:"etcd_workspace"`
				File      string `json:"file"`
				From      string `json:"from"`
			} `json:"ledger"`
		} `json:"coordinator"`
	}
	mustJSON(t, b.mustLG("status", "--json"), &st)
	if l := st.Coordinator.Ledger; l.Workspace != "from-env" || l.File != "" || l.From != "LEASEGATE_CLUSTER" {
		t.Errorf("status --json ledger = %+v, want workspace from-env named by LEASEGATE_CLUSTER", l)
	}
	if text := b.mustLG("status"); !strings.Contains(text, `ledger   workspace "from-env" on etcd [`) {
		t.Errorf("status does not name the shared ledger:\n%s", text)
	}
	var check struct {
		Store, Workspace string
	}
	mustJSON(t, b.mustLG("ledger", "check", "--json"), &check)
	if check.Store != "etcd" || check.Workspace != "from-env" {
		t.Errorf("ledger check --json = %+v, want the etcd workspace from-env", check)
	}
}

// TestClusterFromEnvRefused: a command whose LEASEGATE_CLUSTER names
// another ledger than the running coordinator serves is refused (exit 2
// LEDGER_MISMATCH) naming both, an agent hook's write with it is refused,
// and nothing is granted; "none" names the
// file it serves and is taken; an invalid value is exit 2
// INPUT_SCHEMA_INVALID naming the variable and the field; `serve --stop`
// stops the coordinator whatever the variable says.
func TestClusterFromEnvRefused(t *testing.T) {
	r := newRepo(t, map[string]string{"f.txt": "f\n"})
	const elsewhere = `LEASEGATE_CLUSTER={"endpoints": ["http://127.0.0.1:9"], "workspace": "elsewhere"}`
	_, errs, code := r.lgWith("", elsewhere, "acquire", "f.txt", "--as", "bob", "--json")
	var rep struct {
		Error struct{ Code, Message string }
	}
	mustJSON(t, errs, &rep)
	ledger := filepath.Join(r.dir, ".git", "leasegate", "ledger.db")
	if code != 2 || rep.Error.Code != "LEDGER_MISMATCH" ||
		!strings.Contains(rep.Error.Message, `LEASEGATE_CLUSTER names workspace "elsewhere" on etcd [http://127.0.0.1:9]`) ||
		!strings.Contains(rep.Error.Message, "serves "+ledger+" (no cluster named)") {
		t.Fatalf("acquire with another ledger named: exit %d, %+v; want 2 LEDGER_MISMATCH naming both ledgers", code, rep.Error)
	}
	_, errs, code = r.lgWith(toolWrite("s1", r.dir, "f.txt"), elsewhere, "hook", "claude-code")
	if code != 2 || !strings.Contains(errs, `LEASEGATE_CLUSTER names workspace "elsewhere"`) || !strings.Contains(errs, "serves another lease table") || strings.Contains(errs, "cannot be reached") {
		t.Fatalf("agent hook with another ledger named: exit %d, want 2 (the write refused) naming the ledgers\nstderr: %s", code, errs)
	}
	if h := r.holders(); len(h) != 0 {
		t.Fatalf("holders after the refusals = %v, want none", h)
	}
	if _, errs, code := r.lgWith("", "LEASEGATE_CLUSTER=none", "acquire", "f.txt", "--as", "bob"); code != 0 {
		t.Fatalf("acquire with LEASEGATE_CLUSTER=none on the file's coordinator: exit %d: %s", code, errs)
	}
	_, errs, code = r.lgWith("", `LEASEGATE_CLUSTER={"endpoints": [], "workspace": "w"}`, "status", "--json")
	mustJSON(t, errs, &rep)
	if code != 2 || rep.Error.Code != "INPUT_SCHEMA_INVALID" || !strings.Contains(rep.Error.Message, "LEASEGATE_CLUSTER: cluster.endpoints") {
		t.Fatalf("status with an invalid LEASEGATE_CLUSTER: exit %d, %+v; want 2 INPUT_SCHEMA_INVALID naming the variable and field", code, rep.Error)
	}
	if out, errs, code := r.lgWith("", elsewhere, "serve", "--stop", "--force"); code != 0 || !strings.Contains(out, "stopped") {
		t.Fatalf("serve --stop with another ledger named: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
}

// TestClusterFromEnvRunRefusesAnotherCoordinator: a worker run with
// LEASEGATE_CLUSTER whose coordinator is replaced by one started without
// it (on the clone's own file) is not registered with the new one: its
// sidecar says which ledgers differ, and the worker's write stays held
// instead of being granted on the wrong table.
func TestClusterFromEnvRunRefusesAnotherCoordinator(t *testing.T) {
	r, plain := namedClusterCheckout(t, "swap")
	// The worker starts once run has its registration's answer: the
	// coordinator is killed only after that, not between the registration's
	// commit and its answer (which run would then find refused).
	sig := t.TempDir()
	started, trigger := filepath.Join(sig, "started"), filepath.Join(sig, "go")
	w := r.workerEnv("alice", fmt.Sprintf(": > %s; while [ ! -e %s ]; do sleep 0.05; done; echo x >> a.txt", started, trigger), "LEASEGATE_NO_START=1")
	eventually(t, 10*time.Second, "alice's worker started", func() bool { _, err := os.Stat(started); return err == nil })
	r.replaceWithFileCoordinator(plain)
	if err := os.WriteFile(trigger, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(w.out.String(), `LEASEGATE_CLUSTER names workspace "swap" on etcd`) {
		if time.Now().After(deadline) {
			t.Fatalf("the sidecar did not refuse the coordinator on the file within 15s; a.txt is %q:\n%s", r.read("a.txt"), w.out)
		}
		time.Sleep(25 * time.Millisecond)
	}
	if got := r.read("a.txt"); got != "a\n" {
		t.Fatalf("a.txt is %q: the write was let through by the coordinator on the file\n%s", got, w.out)
	}
	if h := r.holders(); len(h) != 0 {
		t.Fatalf("the coordinator on the file granted %v to a worker whose variable names the cluster", h)
	}
}

// namedClusterCheckout is a checkout with a.txt whose commands name a
// one-member etcd's workspace ws by LEASEGATE_CLUSTER, its coordinator
// started; plain is the environment without the variable.
func namedClusterCheckout(t *testing.T, ws string) (r *repo, plain []string) {
	t.Helper()
	etcd := startEtcd(t, 1)
	r = newCheckout(t, map[string]string{"a.txt": "a\n"})
	plain = r.env
	r.env = append(slices.Clone(plain), "LEASEGATE_CLUSTER="+clusterValue(etcd, ws))
	r.startServer(retryAfter, idleAfter)
	return r, plain
}

// replaceWithFileCoordinator kills r's coordinator and starts one in the
// environment plain, without LEASEGATE_CLUSTER: on the clone's own file.
func (r *repo) replaceWithFileCoordinator(plain []string) {
	r.t.Helper()
	r.killServer()
	r.env = plain
	r.startServer(retryAfter, idleAfter)
}

// TestClusterFromEnvOtherAddress: a command whose LEASEGATE_CLUSTER names
// the coordinator's workspace on the same etcd cluster by another address
// is served, since etcd reports one cluster id at both; the same
// workspace on another cluster is still refused (exit 2
// LEDGER_MISMATCH), and so is one on endpoints etcd does not answer at,
// saying that it could not be asked.
func TestClusterFromEnvOtherAddress(t *testing.T) {
	r, _ := namedClusterCheckout(t, "addr")
	t.Cleanup(func() { r.lg("serve", "--stop", "--force") })
	ep := clusterEndpoint(t, r)
	other := strings.Replace(ep, "127.0.0.1", "localhost", 1)
	named := func(eps ...string) string {
		return fmt.Sprintf(`LEASEGATE_CLUSTER={"endpoints": ["%s"], "workspace": "addr"}`, strings.Join(eps, `", "`))
	}
	if _, errs, code := r.lgWith("", named(other), "acquire", "a.txt", "--as", "bob"); code != 0 {
		t.Fatalf("acquire naming the coordinator's cluster as %s (it serves %s): exit %d: %s", other, ep, code, errs)
	}
	if h := r.holders(); h["a.txt"] != "bob" {
		t.Fatalf("holders = %v, want a.txt held by bob", h)
	}

	second := startEtcd(t, 1)
	_, errs, code := r.lgWith("", named(second.Endpoints...), "acquire", "a.txt", "--as", "carol")
	if code != 2 || !strings.Contains(errs, `LEASEGATE_CLUSTER names workspace "addr" on etcd [`+second.Endpoints[0]+`]`) ||
		strings.Contains(errs, "could not be asked") {
		t.Fatalf("acquire naming the workspace on another cluster: exit %d, want 2 LEDGER_MISMATCH\nstderr: %s", code, errs)
	}
	_, errs, code = r.lgWith("", named("http://127.0.0.1:9"), "acquire", "a.txt", "--as", "carol")
	if code != 2 || !strings.Contains(errs, "could not be asked") || !strings.Contains(errs, "http://127.0.0.1:9") {
		t.Fatalf("acquire naming the workspace where etcd does not answer: exit %d, want 2 saying etcd could not be asked\nstderr: %s", code, errs)
	}
	if h := r.holders(); h["a.txt"] != "bob" {
		t.Fatalf("holders = %v: carol was granted a file on another ledger", h)
	}
}

// clusterEndpoint is the one etcd endpoint r's LEASEGATE_CLUSTER names.
func clusterEndpoint(t *testing.T, r *repo) string {
	t.Helper()
	for _, kv := range r.env {
		if v, ok := strings.CutPrefix(kv, "LEASEGATE_CLUSTER="); ok {
			var c struct{ Endpoints []string }
			if err := json.Unmarshal([]byte(v), &c); err != nil || len(c.Endpoints) != 1 {
				t.Fatalf("LEASEGATE_CLUSTER=%s: %v, want one endpoint", v, err)
			}
			return c.Endpoints[0]
		}
	}
	t.Fatal("no LEASEGATE_CLUSTER in the checkout's environment")
	return ""
}
