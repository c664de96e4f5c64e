package integration_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// blockedAndKilled gives the repo an open blocker whose requester is dead:
// alice checks a.txt out, bob's worker writes it, is blocked at his retry,
// and is killed (kill -9 of his sidecar).
func blockedAndKilled(t *testing.T, r *repo) string {
	t.Helper()
	r.mustLG("acquire", "a.txt", "--as", "alice")
	w := r.worker("bob", "echo bob > a.txt")
	id := waitBlockerFor(t, r, "bob", 30*time.Second)
	if err := w.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	w.wait(t, 10*time.Second)
	return id
}

// serverExits waits for the repo's coordinator to exit and fails the test
// if it does not within the time given.
func serverExits(t *testing.T, r *repo, within time.Duration, why string) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- r.server.Wait() }()
	select {
	case err := <-done:
		r.server = nil
		if err != nil {
			t.Errorf("the coordinator exited with %v after %s; log:\n%s", err, why, r.log)
		}
	case <-time.After(within):
		t.Fatalf("the coordinator still runs %s after %s; log:\n%s", within, why, r.log)
	}
}

// TestCoordinatorEndsWithItsWorkspace: removing a workspace whose
// coordinator holds an open blocker of a killed worker ends the
// coordinator within seconds.
func TestCoordinatorEndsWithItsWorkspace(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	blockedAndKilled(t, r)
	if err := os.RemoveAll(r.dir); err != nil {
		t.Fatal(err)
	}
	serverExits(t, r, 15*time.Second, "its workspace was removed")
	if !strings.Contains(r.log.String(), "workspace removed") {
		t.Errorf("the coordinator's log does not say why it stopped:\n%s", r.log)
	}
}

// TestIdleExitNotHeldByTheDead: a blocker whose requester was killed does
// not keep an idle coordinator running: the liveness check closes it with
// the evidence, and --idle-exit ends the coordinator.
func TestIdleExitNotHeldByTheDead(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	r.stopServer()
	r.log = &bytes.Buffer{}
	cmd := exec.Command(bin, "serve", "--workspace", r.dir, "--retry-after", retryAfter.String(),
		"--idle-after", idleAfter.String(), "--idle-exit", "1s", "--log-level", "info")
	cmd.Env, cmd.Stdout, cmd.Stderr = r.env, r.log, r.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.server = cmd
	t.Cleanup(r.stopServer)
	eventually(t, 15*time.Second, "the coordinator to answer", func() bool {
		_, _, code := r.lg("status", "--json")
		return code == 0
	})
	id := blockedAndKilled(t, r)
	r.mustLG("release", "a.txt", "--as", "alice")
	serverExits(t, r, 30*time.Second, "its last owner was killed")
	if log := r.log.String(); !strings.Contains(log, id) || !strings.Contains(log, "requester bob is gone") {
		t.Errorf("the log does not show blocker %s closed for its dead requester:\n%s", id, log)
	}
}

// TestServeStop: `serve --stop` refuses while an owner holds a lease (exit
// 3, the coordinator keeps serving), refuses a worker even with --force,
// stops it with --force from an operator's shell, and says so when none
// runs; the lease is still there for the next coordinator.
func TestServeStop(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	r.mustLG("acquire", "a.txt", "--as", "alice")
	out, errs, code := r.lg("serve", "--stop")
	if code != 3 || !strings.Contains(errs, "alice holds 1") || !strings.Contains(errs, "--force") {
		t.Fatalf("serve --stop with a lease held: exit %d, want 3 naming alice and --force\nstdout: %s\nstderr: %s", code, out, errs)
	}
	if _, _, code := r.lg("status", "--json"); code != 0 {
		t.Fatalf("the coordinator does not answer after a refused --stop (status exit %d)", code)
	}
	w := r.worker("carol", bin+" serve --stop --force; echo rc=$?")
	if code := w.wait(t, 30*time.Second); code != 0 || !strings.Contains(w.out.String(), "rc=3") || !strings.Contains(w.out.String(), "ADMIN_REQUIRED") {
		t.Fatalf("serve --stop --force from inside a worker: exit %d, want the stop refused with ADMIN_REQUIRED (rc=3):\n%s", code, w.out)
	}
	var stopped struct {
		Stopped   bool   `json:"stopped"`
		PID       int    `json:"pid"`
		Workspace string `json:"workspace"`
	}
	mustJSON(t, r.mustLG("serve", "--stop", "--force", "--json"), &stopped)
	if !stopped.Stopped || stopped.PID != r.server.Process.Pid || stopped.Workspace != r.dir {
		t.Errorf("serve --stop --force --json = %+v, want stopped, the coordinator's pid %d and %s", stopped, r.server.Process.Pid, r.dir)
	}
	serverExits(t, r, 15*time.Second, "serve --stop --force")
	if out := r.mustLG("serve", "--stop"); !strings.Contains(out, "no coordinator running") {
		t.Errorf("serve --stop with none running says %q", out)
	}
	stopped.Stopped, stopped.PID = true, 0
	mustJSON(t, r.mustLG("serve", "--stop", "--json"), &stopped)
	if stopped.Stopped || stopped.PID != 0 {
		t.Errorf("serve --stop --json with none running = %+v, want not stopped and no pid", stopped)
	}
	if _, errs, code := r.lg("acquire", "a.txt", "--as", "bob"); code != 3 || !strings.Contains(errs, "alice") {
		t.Errorf("bob's acquire of a.txt after the stop: exit %d, want 3 (alice's lease kept): %s", code, errs)
	}
	stopServe(t, r.dir)
}
