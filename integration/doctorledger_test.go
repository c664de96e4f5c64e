//go:build linux

package integration_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/internal/disktest"
)

// TestDoctorWarnsOfADegradedLedger: doctor asks the coordinator running
// for the workspace about its ledger. Healthy, it says ok; with the state
// directory on a full disk (a real ENOSPC), it prints the ledger warning
// with its cause, under --json too, and exits 1 though every hook is in
// place; with none running it says so and starts none.
func TestDoctorWarnsOfADegradedLedger(t *testing.T) {
	r := newRepo(t, nil)
	lg := lgFunc(t, r.dir, append(append([]string(nil), r.env...), "HOME="+t.TempDir()))
	lg("install", "claude-code")
	// None running: doctor says so, and neither it nor the hook command
	// and MCP server it tries start one.
	r.stopServer()
	if out, code := lg("doctor"); code != 0 || !strings.Contains(out, "coordinator: not running (doctor starts none") {
		t.Fatalf("doctor with no coordinator: exit %d, want 0 and it not running:\n%s", code, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if h, err := r.client.Health(ctx); err == nil {
		t.Fatalf("doctor left a coordinator running (pid %d)", h.PID)
	}
	r.startServer(retryAfter, idleAfter)
	const healthy = "coordinator: ok: running, its ledger healthy"
	if out, code := lg("doctor"); code != 0 || !strings.Contains(out, healthy) {
		t.Fatalf("doctor with a healthy ledger: exit %d, want 0 and %q:\n%s", code, healthy, out)
	}

	state := stateOnSmallDisk(t, r, "8m")
	filler := disktest.Fill(t, state)
	grantUntilRefused(t, r, "a")
	out, code := lg("doctor")
	if code != 1 || !strings.Contains(out, "coordinator: WARNING: ledger degraded") || !strings.Contains(out, "no space left on device") ||
		!strings.Contains(out, "claude-code: ok: 7 hooks") {
		t.Fatalf("doctor on a full disk: exit %d, want 1, the hooks ok and the ledger warning naming the full disk:\n%s", code, out)
	}
	out, code = lg("doctor", "--json")
	var doc struct {
		Coordinator *struct {
			Running bool   `json:"running"`
			OK      bool   `json:"ok"`
			Warning string `json:"warning"`
		} `json:"coordinator"`
	}
	mustJSON(t, out, &doc)
	if c := doc.Coordinator; code != 1 || c == nil || !c.Running || c.OK || !strings.Contains(c.Warning, "no space left on device") {
		t.Fatalf("doctor --json on a full disk: exit %d, want 1 and coordinator {running, not ok, the warning}:\n%s", code, out)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the ledger recovering once space returned", func() bool { return r.status().LedgerWarning == "" })
	if out, code := lg("doctor"); code != 0 || !strings.Contains(out, healthy) {
		t.Fatalf("doctor once space returned: exit %d, want 0 and %q:\n%s", code, healthy, out)
	}
}
