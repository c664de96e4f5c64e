package console_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/console"
	"github.com/leasegate/leasegate/gate"
)

// TestDegradedLedgerRefreshesThePage: while the ledger is degraded, a
// write it refuses to record brings no ledger event; the page is sent the
// status again every two seconds, so it shows the write, marked
// not_recorded.
func TestDegradedLedgerRefreshesThePage(t *testing.T) {
	svc := newFake()
	svc.setStatus(func(st *leasegate.Status) { st.LedgerWarning = "ledger degraded: no space left on device" })
	mock := clock.NewMock()
	next := mustEvents(t, svc, func(c *console.Config) { c.Clock = mock })
	if name, data := next(); name != "snapshot" || !strings.Contains(data, `"ledger_warning":"ledger degraded`) {
		t.Fatalf("first event %s %.80s, want the snapshot with the ledger's warning", name, data)
	}
	svc.setStatus(func(st *leasegate.Status) {
		st.Ungated = []leasegate.UngatedWrite{{Path: "unseen.txt", At: time.Unix(1e9, 0).UTC(), Op: "write", Reporter: "watcher", NotRecorded: true}}
	})
	mock.Add(2 * time.Second)
	name, data := next()
	if name != "state" || !strings.Contains(data, `"path":"unseen.txt"`) || !strings.Contains(data, `"not_recorded":true`) {
		t.Fatalf("event 2 s after the snapshot: %s %.200s; want a state with the unrecorded write", name, data)
	}
}

// TestHealthyLedgerIsNotRefreshed: with the ledger healthy, the page gets
// a state only after a ledger event, as before: the ticks send nothing.
func TestHealthyLedgerIsNotRefreshed(t *testing.T) {
	svc := newFake()
	mock := clock.NewMock()
	next := mustEvents(t, svc, func(c *console.Config) { c.Clock = mock })
	if name, _ := next(); name != "snapshot" {
		t.Fatalf("first event %s, want the snapshot", name)
	}
	for range 3 {
		mock.Add(2 * time.Second)
	}
	svc.feed <- gate.Event{Seq: 8, Type: gate.EventOwnerStopped, Actor: "alice"}
	for _, want := range []string{"ledger", "state"} {
		if name, data := next(); name != want {
			t.Fatalf("event %s %.80s after three ticks and one ledger event, want %s", name, data, want)
		}
	}
}

// TestPageStateSaysGitLockAndWentBack: the snapshot carries, worded as
// status and blockers word them, the git lock note of a waiting write
// whose process holds git's lock (by its contention's id), and the line
// saying that the shared ledger went back.
func TestPageStateSaysGitLockAndWentBack(t *testing.T) {
	svc := newFake()
	svc.setStatus(func(st *leasegate.Status) {
		st.Contentions = []leasegate.ContentionView{{ID: "C1", Requester: "bob", Paths: []string{"src/a.go"},
			Holder: gate.Lease{Owner: gate.Owner{Name: "alice"}}, HoldsGitLock: ".git/index.lock"},
			{ID: "C2", Requester: "carol", Paths: []string{"src/a.go"}, Holder: gate.Lease{Owner: gate.Owner{Name: "alice"}}}}
		st.WentBack = &leasegate.WentBack{At: time.Unix(1e9, 0).UTC(), Seen: 9, Ends: 4, LostCount: 1,
			Lost: []leasegate.LostLease{{ID: "L9", Owner: "dave", Kind: gate.KindAuto, Paths: []string{"b.go"}}}}
	})
	next := mustEvents(t, svc)
	name, data := next()
	var ps struct {
		Notes    map[string]string `json:"git_lock_notes"`
		WentBack string            `json:"went_back_summary"`
	}
	if err := json.Unmarshal([]byte(data), &ps); name != "snapshot" || err != nil {
		t.Fatalf("first event %s %.80s (%v), want the snapshot", name, data, err)
	}
	if want := blocker.GitLockNote(".git/index.lock", "C1", "alice"); len(ps.Notes) != 1 || ps.Notes["C1"] != want {
		t.Errorf("git_lock_notes = %q, want C1's alone: %q", ps.Notes, want)
	}
	if !strings.Contains(ps.WentBack, "1 lease it held is gone: dave's b.go (L9)") {
		t.Errorf("went_back_summary = %q, want dave's lost lease", ps.WentBack)
	}
}
