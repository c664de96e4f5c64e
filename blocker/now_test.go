package blocker_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// reclaimedHolder is the report's holder lease as the lease table has it
// after liveness reclaimed it a minute after the retry.
func reclaimedHolder() gate.Lease {
	l := input().Holder
	l.State, l.TerminatedAt, l.EndedBy = gate.StateReclaimed, retried.Add(time.Minute), "liveness"
	l.ReleaseReason = "owner dead: pidfd: pid 4321 exited"
	return l
}

// TestObserveReclaimedHolder: a report read after its holder was
// reclaimed says so, with when, by whom, the evidence and where it was
// read, and no longer offers to evict the lease (the evict would fail
// with LEASE_ALREADY_TERMINAL): the retry comes first.
func TestObserveReclaimedHolder(t *testing.T) {
	r := report()
	r.FreeSince = retried.Add(time.Minute)
	now := retried.Add(2 * time.Minute)
	got := r.Observe(reclaimedHolder(), now)
	want := blocker.HolderNow{State: gate.StateReclaimed, EndedAt: retried.Add(time.Minute), EndedBy: "liveness",
		Evidence: "owner dead: pidfd: pid 4321 exited", Source: blocker.SourceTable, AsOf: now}
	if got.HolderNow == nil || *got.HolderNow != want {
		t.Fatalf("Observe(reclaimed).HolderNow = %+v, want %+v", got.HolderNow, want)
	}
	steps := []string{
		"leasegate resolve 01JNQ5Z6S4B3M2X8K7V9T0R1YA --retry  # first: the holder no longer holds the file (lease reclaimed at 2025-03-01T12:04:00Z by liveness); the file is free, so this grants the write",
		"leasegate resolve 01JNQ5Z6S4B3M2X8K7V9T0R1YA --deny  # fail the write with EBUSY and let the worker continue",
		"leasegate resolve 01JNQ5Z6S4B3M2X8K7V9T0R1YA --abort  # end the worker",
	}
	if !slices.Equal(got.HowToResolve, steps) {
		t.Errorf("Observe(reclaimed).HowToResolve =\n%q\nwant\n%q", got.HowToResolve, steps)
	}
	if !reflect.DeepEqual(got.Holder, r.Holder) || got.RetriedAt != r.RetriedAt {
		t.Errorf("Observe changed the record of the retry: holder %+v, want %+v", got.Holder, r.Holder)
	}
	md := got.Markdown()
	for _, s := range []string{
		"Written at the retry, 2025-03-01T12:03:00Z; \"Holder now\" and the steps to resolve are as of 2025-03-01T12:05:00Z.",
		"| Holder liveness | alive, checked 2025-03-01T12:03:00Z (at the retry) |",
		"| Holder now | lease reclaimed at 2025-03-01T12:04:00Z by liveness: owner dead: pidfd: pid 4321 exited (from the lease table, as of 2025-03-01T12:05:00Z) |",
		"1. `leasegate resolve 01JNQ5Z6S4B3M2X8K7V9T0R1YA --retry  # first:",
	} {
		if !strings.Contains(md, s) {
			t.Errorf("Markdown() of a report whose holder was reclaimed lacks %q:\n%s", s, md)
		}
	}
	if strings.Contains(md, "leasegate evict") {
		t.Errorf("Markdown() offers to evict a lease already reclaimed:\n%s", md)
	}
}

// TestObserveHolderStates: each way the holder's lease can stand when
// the report is read, and whether evict is still offered.
func TestObserveHolderStates(t *testing.T) {
	now := retried.Add(time.Hour)
	active := input().Holder
	released := active
	released.State, released.TerminatedAt, released.EndedBy, released.ReleaseReason = gate.StateReleased, retried.Add(time.Minute), "bob", "released by bob"
	checkout := active
	checkout.Kind, checkout.ExpiresAt = gate.KindCheckout, retried.Add(time.Minute)
	for _, tc := range []struct {
		name      string
		lease     gate.Lease
		wantState gate.State
		holds     bool
		phrase    string
	}{
		{name: "active", lease: active, wantState: gate.StateActive, holds: true, phrase: "holds the file (lease active)"},
		{name: "released", lease: released, wantState: gate.StateReleased, phrase: "lease released at 2025-03-01T12:04:00Z by bob"},
		{name: "check-out past its expiry", lease: checkout, wantState: gate.StateExpired, phrase: "lease expired at 2025-03-01T12:04:00Z"},
		{name: "pruned from the table", lease: gate.Lease{}, wantState: blocker.StateForgotten, phrase: "lease ended (no longer in the lease table)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := report().Observe(tc.lease, now)
			n := r.HolderNow
			if n.State != tc.wantState || n.Holds != tc.holds || n.Phrase() != tc.phrase {
				t.Errorf("Observe(%s).HolderNow = %+v (%q), want state %s, holds %v, %q", tc.name, n, n.Phrase(), tc.wantState, tc.holds, tc.phrase)
			}
			evicts := slices.ContainsFunc(r.HowToResolve, func(s string) bool { return strings.HasPrefix(s, "leasegate evict ") })
			if evicts != tc.holds {
				t.Errorf("Observe(%s).HowToResolve offers evict: %v, want %v:\n%q", tc.name, evicts, tc.holds, r.HowToResolve)
			}
			if !strings.HasPrefix(r.HowToResolve[0], "leasegate resolve "+r.ID+" --retry") {
				t.Errorf("Observe(%s): first step %q, want the retry", tc.name, r.HowToResolve[0])
			}
		})
	}
}

// TestResolvedReportListsNoSteps: once resolved, no command of the report
// applies (each would fail: the blocker is not open).
func TestResolvedReportListsNoSteps(t *testing.T) {
	r := report()
	if err := r.Resolve(blocker.ActionRetry, "carol", retried.Add(time.Minute), ""); err != nil {
		t.Fatal(err)
	}
	for name, rep := range map[string]blocker.Report{"resolved": r, "resolved, read later": r.Observe(reclaimedHolder(), retried.Add(time.Hour))} {
		if len(rep.HowToResolve) != 0 {
			t.Errorf("%s report: HowToResolve = %q, want none", name, rep.HowToResolve)
		}
		if md := rep.Markdown(); !strings.Contains(md, "## How to resolve\n\nNothing left to do: the blocker is retried.\n") {
			t.Errorf("%s report: Markdown() does not say nothing is left to do:\n%s", name, md)
		}
	}
}

// TestHolderNowJSON: the holder's state now is an added field of the
// report's JSON; a report written before it reads back without it.
func TestHolderNowJSON(t *testing.T) {
	r := report().Observe(reclaimedHolder(), retried.Add(2*time.Minute))
	data, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"holder_now": {`, `"state": "reclaimed"`, `"holds": false`, `"ended_at": "2025-03-01T12:04:00Z"`,
		`"ended_by": "liveness"`, `"source": "the lease table"`, `"as_of": "2025-03-01T12:05:00Z"`, `"how_to_resolve": [`} {
		if !strings.Contains(string(data), s) {
			t.Errorf("JSON() lacks %s:\n%s", s, data)
		}
	}
	var old blocker.Report
	if err := json.Unmarshal([]byte(`{"id":"B","status":"open","how_to_resolve":["leasegate resolve B --retry"]}`), &old); err != nil || old.HolderNow != nil {
		t.Errorf("Unmarshal(a report without holder_now) = %v, HolderNow %+v; want no error and nil", err, old.HolderNow)
	}
}
