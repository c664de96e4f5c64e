package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

// statusNow is the time of the status every rendering test shows.
var statusNow = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// autoLease is owner's active auto lease of path, acquired at statusNow.
func autoLease(owner, path string, token uint64) gate.Lease {
	return gate.Lease{Owner: gate.Owner{Name: owner}, Kind: gate.KindAuto, State: gate.StateActive,
		Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{path}}, FencingToken: token, AcquiredAt: statusNow}
}

// renderStatus is the text status of st in a workspace at /w, every
// lease listed when all is set.
func renderStatus(st leasegate.Status, all bool) string {
	var b bytes.Buffer
	printStatus(&b, st, api.Health{}, 0, &workspace.Workspace{Root: "/w"}, "rule", all)
	return b.String()
}

// TestStatusCapsLeasesPerOwner: the text status lists at most
// statusLeasesPerOwner leases of each owner, oldest first, grouped by
// owner, with a line saying how many more; --all lists every one.
func TestStatusCapsLeasesPerOwner(t *testing.T) {
	var leases []gate.Lease
	add := func(owner string, n int) {
		for i := range n {
			leases = append(leases, autoLease(owner, fmt.Sprintf("%s/f%04d", owner, i), uint64(len(leases)+1)))
		}
	}
	add("zed", 3)
	add("alice", statusLeasesPerOwner+25)
	add("bob", statusLeasesPerOwner)
	st := leasegate.Status{Now: statusNow, Leases: leases}

	out := renderStatus(st, false)
	for _, want := range []string{"LEASES (48)", "alice/f0000 ", "alice/f0009 ", "... 25 more  alice", "bob/f0009 ", "zed/f0002 "} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	for _, absent := range []string{"alice/f0010 ", "more  bob", "more  zed"} {
		if strings.Contains(out, absent) {
			t.Errorf("status has %q:\n%s", absent, out)
		}
	}
	if a, b, z := strings.Index(out, "alice/f0000"), strings.Index(out, "bob/f0000"), strings.Index(out, "zed/f0000"); !(a < b && b < z) {
		t.Errorf("leases not grouped by owner in name order:\n%s", out)
	}

	if out := renderStatus(st, true); !strings.Contains(out, "alice/f0034 ") || strings.Contains(out, "more") {
		t.Errorf("status --all does not list every lease:\n%s", out)
	}
}

// TestStatusLongNameOnItsOwnLine: a lease name longer than the table's
// column is put on a line of its own, so the other rows keep their width.
func TestStatusLongNameOnItsOwnLine(t *testing.T) {
	long := strings.Repeat("d/", 300) + "x.txt"
	st := leasegate.Status{Now: statusNow, Leases: []gate.Lease{autoLease("alice", "a.txt", 1), autoLease("alice", long, 2)}}
	out := renderStatus(st, false)
	if !strings.Contains(out, "\n"+long+"\n  (the name above)") {
		t.Errorf("the long name is not on a line of its own above its row:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "a.txt") && len(line) > 120 {
			t.Errorf("a short name's row is padded to the long name: %d bytes", len(line))
		}
	}
}

// TestStatusShowsWindows: the text status shows the coordinator's windows
// for owners that name none and each owner's windows with their source.
func TestStatusShowsWindows(t *testing.T) {
	st := leasegate.Status{Now: statusNow, RetryAfter: gate.DefaultRetryAfter, IdleAfter: gate.DefaultIdleAfter, Defaults: gate.ContractWindows(),
		Owners: []leasegate.OwnerView{{Owner: gate.Owner{Name: "alice"}, Windows: gate.Windows{
			Retry: gate.Window{After: time.Second, From: gate.FromFlag}, Idle: gate.Window{After: 30 * time.Second, From: gate.FromCoordinator}}}}}
	out := renderStatus(st, false)
	for _, want := range []string{"retry after 3m0s (contract), stop-idle 30s (contract)", "RETRY AFTER", "1s (flag)", "30s (coordinator default)"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
}

// TestStatusPIDColumn: the PID column shows the pid the coordinator sees,
// the reported one beside it when they differ, and "-" for an owner with
// no process (an agent hook's session), never a pid 0.
func TestStatusPIDColumn(t *testing.T) {
	for _, tt := range []struct {
		seen, reported int
		want           string
	}{
		{seen: 0, reported: 0, want: "-"},
		{seen: 0, reported: 42, want: "42"},
		{seen: 42, reported: 42, want: "42"},
		{seen: 4242, reported: 1, want: "4242 (reported 1)"},
	} {
		if got := pidString(leasegate.OwnerView{SeenPID: tt.seen, Owner: gate.Owner{PID: tt.reported}}); got != tt.want {
			t.Errorf("pidString(seen %d, reported %d) = %q, want %q", tt.seen, tt.reported, got, tt.want)
		}
	}
}

// TestStatusNeverActive: an owner with no recorded activity (one known
// only from the ledger after a restart) shows "-", not "- ago".
func TestStatusNeverActive(t *testing.T) {
	st := leasegate.Status{Now: statusNow, Owners: []leasegate.OwnerView{
		{Owner: gate.Owner{Name: "fresh"}},
		{Owner: gate.Owner{Name: "busy"}, LastActivity: statusNow.Add(-3 * time.Second)},
	}}
	out := renderStatus(st, false)
	if strings.Contains(out, "- ago") || !strings.Contains(out, "3s ago") {
		t.Fatalf("status's LAST ACTIVITY column:\n%s", out)
	}
}

// TestStatusShowsLedger: the text status names the ledger the coordinator
// serves and what named it: the file by its path in the workspace, a
// shared one by its workspace and endpoints.
func TestStatusShowsLedger(t *testing.T) {
	ledgerRel := filepath.FromSlash(".git/leasegate/ledger.db") // as the platform spells a path
	tests := []struct {
		ledger leasegate.LedgerView
		want   string
	}{
		{ledger: leasegate.LedgerView{File: "/w/.git/leasegate/ledger.db"}, want: "  ledger   " + ledgerRel + " (no cluster named)\n"},
		{ledger: leasegate.LedgerView{File: "/w/.git/leasegate/ledger.db", From: "LEASEGATE_CLUSTER"},
			want: "  ledger   " + ledgerRel + " (named by LEASEGATE_CLUSTER)\n"},
		{ledger: leasegate.LedgerView{Endpoints: []string{"http://b:2379", "http://a:2379"}, Workspace: "acme/web", From: "leasegate.json"},
			want: `  ledger   workspace "acme/web" on etcd [http://a:2379 http://b:2379] (named by leasegate.json)` + "\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		printStatus(&b, leasegate.Status{Now: statusNow}, api.Health{Ledger: &tt.ledger}, 0, &workspace.Workspace{Root: "/w"}, "rule", false)
		if !strings.Contains(b.String(), tt.want) {
			t.Errorf("status of %+v lacks %q:\n%s", tt.ledger, tt.want, b.String())
		}
	}
}

// TestStatusShowsPendingToken: a lease whose token its commit has not
// fixed yet (0, on a shared ledger) reads as pending, not as token 0.
func TestStatusShowsPendingToken(t *testing.T) {
	out := renderStatus(leasegate.Status{Now: statusNow, Leases: []gate.Lease{autoLease("alice", "a.go", 0), autoLease("bob", "b.go", 7<<20)}}, false)
	for _, want := range []string{"a.go        alice  auto  pending", "b.go        bob    auto  7340032"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
}

// TestStatusSaysUngatedNotRecorded: an ungated write the ledger refused
// to record says so on its line; a recorded one does not.
func TestStatusSaysUngatedNotRecorded(t *testing.T) {
	st := leasegate.Status{Now: statusNow, Ungated: []leasegate.UngatedWrite{
		{Path: "refused.txt", At: statusNow, Op: "write", Reporter: "watcher", NotRecorded: true},
		{Path: "kept.txt", At: statusNow, Op: "write", Reporter: "watcher"},
	}}
	for _, line := range strings.Split(renderStatus(st, false), "\n") {
		said := strings.Contains(line, "not recorded: the ledger refused it")
		if (strings.Contains(line, "refused.txt") && !said) || (strings.Contains(line, "kept.txt") && said) {
			t.Errorf("status line %q: want only the refused write's line to say it was not recorded", line)
		}
	}
}

// TestStatusSaysLedgerWentBack: a shared ledger that went back is a
// WARNING line naming the leases lost, each by owner, path and id, and
// how many more there were than status lists.
func TestStatusSaysLedgerWentBack(t *testing.T) {
	wb := &leasegate.WentBack{At: statusNow, Seen: 9, Ends: 4, LostCount: 3, Lost: []leasegate.LostLease{
		{ID: "01A", Owner: "alice", Kind: gate.KindAuto, Paths: []string{"src/a.go", "src/a_test.go"}},
		{ID: "01B", Owner: "bob", Kind: gate.KindCheckout, Paths: []string{"**"}},
	}}
	out := renderStatus(leasegate.Status{Now: statusNow, WentBack: wb}, false)
	for _, want := range []string{"WARNING: the shared ledger went back at " + statusNow.UTC().Format(time.RFC3339),
		"it ends at seq 4, seq 9 had been read", "3 leases it held are gone: alice's src/a.go src/a_test.go (01A); bob's ** (01B); and 1 more;"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	if out := renderStatus(leasegate.Status{Now: statusNow}, false); strings.Contains(out, "went back") {
		t.Errorf("status of a ledger that did not go back says it did:\n%s", out)
	}
}

// TestStatusShowsANarrowedNewDirectoryInBrief: a new directory's lease
// narrowed to thousands of entries is one row naming its first few and
// how many more, marked as a new directory's; the events and the history
// name it alike. --json keeps every path (the lease as it is).
func TestStatusShowsANarrowedNewDirectoryInBrief(t *testing.T) {
	paths := []string{"gen"}
	for i := range gate.MaxPaths - 1 {
		paths = append(paths, fmt.Sprintf("gen/f%04d", i))
	}
	l := autoLease("alice", "gen/**", 1)
	l.NewDir, l.Scope = true, gate.Scope{Type: gate.ScopeSparse, Paths: paths}
	out := renderStatus(leasegate.Status{Now: statusNow, Leases: []gate.Lease{l}}, false)
	want := fmt.Sprintf("gen gen/f0000 gen/f0001 gen/f0002 gen/f0003 and %d more (new directory)", gate.MaxPaths-gate.MaxShownPaths)
	if !strings.Contains(out, want) || strings.Contains(out, "gen/f0004") || len(out) > 2000 {
		t.Errorf("status of a narrowed new directory's lease (%d bytes) lacks %q or lists more:\n%.3000s", len(out), want, out)
	}
	line := eventLine(gate.Event{Seq: 7, At: statusNow, Type: gate.EventNarrowed, LeaseID: l.ID, Lease: &l, Actor: "bob", Path: "gen/new"})
	if !strings.Contains(line, want+" (auto, token 1)") || strings.Contains(line, "gen/f0004") {
		t.Errorf("eventLine(lease.narrowed) = %.3000q, want it to name %q", line, want)
	}
	fresh := autoLease("alice", "gen/**", 2)
	fresh.NewDir = true
	if out := renderStatus(leasegate.Status{Now: statusNow, Leases: []gate.Lease{fresh}}, false); !strings.Contains(out, "gen/** (new directory)") {
		t.Errorf("status of a new directory's lease does not say so:\n%s", out)
	}
}
