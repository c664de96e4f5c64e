//go:build linux

package integration_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/disktest"
)

// stateOnSmallDisk stops r's coordinator, puts its state directory on a
// tmpfs of size (root only), with the admin token if there is one, and
// starts it again.
func stateOnSmallDisk(t *testing.T, r *repo, size string) string {
	t.Helper()
	r.stopServer()
	state := filepath.Join(r.dir, ".git", "leasegate")
	token, tokenErr := os.ReadFile(filepath.Join(state, "admin.token"))
	if err := os.Rename(state, state+".before"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	disktest.Small(t, state, size)
	if tokenErr == nil {
		if err := os.WriteFile(filepath.Join(state, "admin.token"), token, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r.startServer(retryAfter, idleAfter)
	return state
}

// grantUntilRefused checks out new files one at a time until the
// coordinator refuses; every refusal must be LEDGER_DEGRADED. It returns
// the paths it was granted.
func grantUntilRefused(t *testing.T, r *repo, prefix string) []string {
	t.Helper()
	var granted []string
	for i := 0; ; i++ {
		if i == 30000 {
			t.Fatalf("30,000 grants on a full disk and no refusal")
		}
		p := fmt.Sprintf("%s/f%d.txt", prefix, i)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := r.client.Lease(ctx, leasegate.LeaseRequest{Op: gate.OpAcquire, Owner: gate.Owner{Name: "alice"},
			Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{p}}})
		cancel()
		if err != nil {
			if !strings.Contains(err.Error(), "LEDGER_DEGRADED") {
				t.Fatalf("grant %d refused with %v, want LEDGER_DEGRADED", i, err)
			}
			return granted
		}
		granted = append(granted, p)
	}
}

// ledgerEvents returns the types of the ledger's events.
func ledgerEvents(t *testing.T, r *repo) map[gate.EventType]int {
	t.Helper()
	got := map[gate.EventType]int{}
	if err := r.client.Events(context.Background(), 0, false, func(e gate.Event) error {
		got[e.Type]++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestFullDiskRefusesBeforeLoss: with the state directory on a full
// tmpfs (a real ENOSPC), the copy of the journal into the ledger file
// fails: status warns, a ledger.degraded event is recorded, and grants
// are refused (LEDGER_DEGRADED) before the journal runs out. Space
// returning heals it by itself (ledger.recovered, grants again). Filled
// once more and killed, the coordinator does not start while the disk is
// full and says why; once space returns it starts with every grant it
// acknowledged, and records that the ledger it left degraded recovered.
func TestFullDiskRefusesBeforeLoss(t *testing.T) {
	r := newRepo(t, nil)
	state := stateOnSmallDisk(t, r, "8m")
	filler := disktest.Fill(t, state)
	granted := grantUntilRefused(t, r, "a")
	s := r.status()
	if !strings.Contains(s.LedgerWarning, "no space left on device") {
		t.Fatalf("status after %d grants and a refusal: ledger warning %q, want the full disk", len(granted), s.LedgerWarning)
	}
	if out := r.mustLG("status"); !strings.Contains(out, "WARNING: ledger degraded") {
		t.Errorf("leasegate status does not warn:\n%s", out)
	}
	if ledgerEvents(t, r)[gate.EventLedgerDegraded] != 1 {
		t.Errorf("no ledger.degraded event after the copy failed")
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the ledger recovering once space returned", func() bool {
		return r.status().LedgerWarning == "" && ledgerEvents(t, r)[gate.EventLedgerRecovered] == 1
	})
	filler = disktest.Fill(t, state)
	granted = append(granted, grantUntilRefused(t, r, "b")...)
	r.killServer()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "serve", "--workspace", r.dir, "--idle-exit", "0").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "no space left on device") {
		t.Fatalf("serve on the full disk: %v, %s; want a refusal naming the full disk", err, out)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	r.startServer(retryAfter, idleAfter)
	held := map[string]bool{}
	for _, l := range r.status().Leases {
		held[l.Scope.Paths[0]] = true
	}
	for _, p := range granted {
		if !held[p] {
			t.Fatalf("after the restart %s is not held, though its grant was acknowledged (%d acknowledged, %d held)", p, len(granted), len(held))
		}
	}
	t.Logf("%d grants acknowledged on a full disk, every one held after the restart", len(granted))
	eventually(t, 30*time.Second, "the restarted coordinator recording that the ledger left degraded recovered", func() bool {
		return ledgerEvents(t, r)[gate.EventLedgerRecovered] == 2
	})
}

// TestRefusedReclaimKeepsItsEvidence: a worker holding thousands of leases
// is killed while the disk is full, so its reclaim (one commit larger than
// the journal's room) is refused. The coordinator must not forget the
// owner's process meanwhile: it stays dead by its pidfd, not "unknown"
// (a pid not found, taken for one of another pid namespace, which waits
// for the heartbeat's TTL), status warns of the full disk, and once space
// returns the reclaim goes through at the next round.
func TestRefusedReclaimKeepsItsEvidence(t *testing.T) {
	r := newRepo(t, nil)
	state := stateOnSmallDisk(t, r, "8m")
	w := r.worker("alice", `i=0; while [ $i -lt 6000 ]; do i=$((i+1)); : > f$i; done; echo made; sleep 60`)
	eventually(t, 60*time.Second, "alice's 6,000 files", func() bool { return strings.Contains(w.out.String(), "made") })
	filler := disktest.Fill(t, state)
	_ = w.cmd.Process.Kill()
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		for _, o := range r.status().Owners {
			if o.Name == "alice" && o.Liveness.Status == gate.Unknown {
				t.Fatalf("alice's reclaim refused on a full disk, then alice judged %s: %q", o.Liveness.Status, o.Liveness.Evidence)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	s := r.status()
	if len(s.Leases) == 0 {
		t.Fatalf("alice's leases were reclaimed on a full disk; the test needs the reclaim refused")
	}
	if !strings.Contains(s.LedgerWarning, "no space left on device") {
		t.Fatalf("status while alice's reclaim is refused: ledger warning %q, want the full disk named", s.LedgerWarning)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	eventually(t, 3*time.Second, "alice's leases reclaimed once space returned", func() bool { return len(r.status().Leases) == 0 })
	if w := r.status().LedgerWarning; w != "" {
		t.Fatalf("status once the reclaim went through still warns: %q", w)
	}
}
