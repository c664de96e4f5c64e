package main

import (
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// TestStatusSaysBlockerHolderLetGo: status lists an open blocker with its
// holder and, once the holder's lease has ended, says so and how, rather
// than only "held by" the name of the report's retry.
func TestStatusSaysBlockerHolderLetGo(t *testing.T) {
	l := autoLease("bob", "a.txt", 1)
	rep := blocker.New(blocker.Input{ID: "B1", Path: "a.txt", Requester: gate.Owner{Name: "alice"}, Holder: l, RetriedAt: statusNow.Add(-time.Minute)})
	if out := renderStatus(leasegate.Status{Now: statusNow, Blockers: []blocker.Report{rep}}, false); strings.Contains(out, "no longer holds") {
		t.Errorf("status says the holder let go while it holds:\n%s", out)
	}
	l.State, l.TerminatedAt, l.EndedBy = gate.StateReclaimed, statusNow.Add(-time.Second), "liveness"
	rep = rep.Observe(l, statusNow)
	out := renderStatus(leasegate.Status{Now: statusNow, Blockers: []blocker.Report{rep}}, false)
	if want := "      holder bob no longer holds it: lease reclaimed at 2030-01-02T03:04:04Z by liveness\n"; !strings.Contains(out, want) {
		t.Errorf("status lacks %q:\n%s", want, out)
	}
}
