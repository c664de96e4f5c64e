package integration_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestUIWaitsForPausedCoordinator: `leasegate ui` on a workspace whose
// coordinator is paused says after 3 s that it still waits for it, and,
// interrupted, that it was interrupted before the coordinator answered,
// not "context canceled".
func TestUIWaitsForPausedCoordinator(t *testing.T) {
	r := newRepo(t, nil)
	if err := pause(r.server.Process); err != nil {
		t.Skipf("cannot pause a process here: %v", err)
	}
	t.Cleanup(func() { _ = resume(r.server.Process) })
	cmd := exec.Command(bin, "ui")
	cmd.Dir, cmd.Env = r.dir, r.env
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "ui's note that it still waits for the coordinator", func() bool {
		return strings.Contains(out.String(), "leasegate: ui: no answer from the coordinator for 3s; still waiting")
	})
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if got := out.String(); !strings.Contains(got, "leasegate: ui: interrupted before the coordinator answered\n") || strings.Contains(got, "context canceled") {
		t.Errorf("ui interrupted while waiting said:\n%s\nwant that it was interrupted before the coordinator answered", got)
	}
}

// TestStatusWaitsForPausedCoordinator: `status --json` on a workspace
// whose coordinator is paused says after 3 s that it still waits and,
// once the coordinator goes on, prints its answer (it gave up after 2 s
// with exit 5, "does not answer", where the README promises the wait).
func TestStatusWaitsForPausedCoordinator(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	r.mustLG("acquire", "a.txt", "--as", "alice")
	if err := pause(r.server.Process); err != nil {
		t.Skipf("cannot pause a process here: %v", err)
	}
	t.Cleanup(func() { _ = resume(r.server.Process) })
	cmd := exec.Command(bin, "status", "--json")
	cmd.Dir, cmd.Env = r.dir, r.env
	var out, errs syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	eventually(t, 30*time.Second, "status's note that it still waits for the coordinator", func() bool {
		return strings.Contains(errs.String(), "leasegate: status: no answer from the coordinator for 3s; still waiting")
	})
	if err := resume(r.server.Process); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("status --json after the coordinator went on: %v\nstdout: %s\nstderr: %s", err, out.String(), errs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("status --json still waiting 30 s after the coordinator went on; stderr: %s", errs.String())
	}
	var s struct {
		Leases []struct {
			Owner struct {
				Name string `json:"name"`
			} `json:"owner"`
		} `json:"leases"`
	}
	mustJSON(t, out.String(), &s)
	if len(s.Leases) != 1 || s.Leases[0].Owner.Name != "alice" {
		t.Errorf("status --json after the wait = %s, want alice's lease", out.String())
	}
}
