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
