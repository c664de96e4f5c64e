package coordinator_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// Timeline of the contention tests, as offsets from the start: alice takes
// src/a.go (and its pair) at 0, bob is denied at deniedAt, asks again at
// joinedAt, and his one retry is due at retryAt.
const (
	deniedAt = 10 * time.Second
	joinedAt = 100 * time.Second
	retryAt  = deniedAt + 180*time.Second
)

// heartbeat is the data of a contention.heartbeat event as the contract
// names its fields.
type heartbeat struct {
	Contention string        `json:"contention_id"`
	File       string        `json:"file"`
	Requester  string        `json:"requester"`
	Holder     string        `json:"holder"`
	LeaseID    gate.LeaseID  `json:"lease_id"`
	HolderAge  time.Duration `json:"holder_age_ns"`
	RetryAt    time.Time     `json:"retry_at"`
}

// contend runs the protocol up to bob's joined second request and checks
// the heartbeat; it returns the contention.
func contend(t *testing.T, e *env) leasegate.ContentionView {
	t.Helper()
	e.live.set("alice", gate.Alive, "pid 4242 running, started 2030-01-02T03:04:05Z")
	held := e.mutate("alice", "src/a.go")
	e.advanceTo(deniedAt)
	r := e.mutate("bob", "src/a.go")
	if r.Outcome != leasegate.Contended || r.Reason != gate.ReasonHeldByOther || r.Contention == nil {
		t.Fatalf("Mutate(bob, src/a.go) = %s %s, want contended on LEASE_HELD_BY_OTHER", r.Outcome, r.Reason)
	}
	con := *r.Contention
	if !con.FirstDeniedAt.Equal(e.at(deniedAt)) || !con.RetryAt.Equal(con.FirstDeniedAt.Add(180*time.Second)) {
		t.Fatalf("denied at %s, retry at %s; want the retry exactly 180s after the denial at %s", con.FirstDeniedAt, con.RetryAt, e.at(deniedAt))
	}
	if con.Holder.Owner.Name != "alice" || con.HolderAge != deniedAt || con.Requester != "bob" {
		t.Fatalf("contention %+v, want holder alice aged %s, requester bob", con, deniedAt)
	}
	checkHeartbeat(t, e, con, held.Leases)
	e.advanceTo(joinedAt)
	again := e.mutate("bob", "src/a.go")
	if again.Outcome != leasegate.Contended || again.Contention.ID != con.ID || !again.Contention.RetryAt.Equal(con.RetryAt) {
		t.Fatalf("repeated Mutate = %s in contention %s retrying at %s; want it to join %s at %s",
			again.Outcome, again.Contention.ID, again.Contention.RetryAt, con.ID, con.RetryAt)
	}
	if n := len(e.events(gate.EventContention)); n != 1 {
		t.Fatalf("%d contention heartbeats after a joined request, want 1", n)
	}
	return con
}

// checkHeartbeat checks the one contention.heartbeat event: file,
// requester, holder, holder age and retry_at.
func checkHeartbeat(t *testing.T, e *env, con leasegate.ContentionView, held []gate.Lease) {
	t.Helper()
	hbs := e.events(gate.EventContention)
	if len(hbs) != 1 {
		t.Fatalf("%d contention heartbeats, want 1", len(hbs))
	}
	var hb heartbeat
	if err := json.Unmarshal(hbs[0].Data, &hb); err != nil {
		t.Fatalf("heartbeat data %s: %v", hbs[0].Data, err)
	}
	want := heartbeat{Contention: con.ID, File: "src/a.go", Requester: "bob", Holder: "alice",
		LeaseID: leaseOn(held, "src/a.go").ID, HolderAge: deniedAt, RetryAt: e.at(retryAt)}
	if !hb.RetryAt.Equal(want.RetryAt) || hb.Contention != want.Contention || hb.File != want.File ||
		hb.Requester != want.Requester || hb.Holder != want.Holder || hb.LeaseID != want.LeaseID || hb.HolderAge != want.HolderAge {
		t.Fatalf("heartbeat %+v, want %+v", hb, want)
	}
	if ev := hbs[0]; ev.Path != "src/a.go" || ev.Actor != "bob" || !ev.At.Equal(e.at(deniedAt)) {
		t.Fatalf("heartbeat event path %q actor %q at %s, want src/a.go, bob, %s", ev.Path, ev.Actor, ev.At, e.at(deniedAt))
	}
}

func leaseOn(ls []gate.Lease, path string) gate.Lease {
	for _, l := range ls {
		if slices.Contains(l.Scope.Paths, path) {
			return l
		}
	}
	return gate.Lease{}
}

// TestContentionWaitsExactly180s: with the default windows nothing is
// decided 179.999 s after the denial while the holder keeps its lease:
// there is no short-loop retry.
func TestContentionWaitsExactly180s(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		con := contend(t, e)
		e.advanceTo(retryAt - time.Millisecond)
		r, err := e.c.WaitContention(cancelled(), con.ID)
		if err != nil || r.Outcome != leasegate.Contended {
			t.Fatalf("WaitContention 1ms before the retry = %s, %v; want contended", r.Outcome, err)
		}
		if n := len(e.events(gate.EventRetry)) + len(e.events(gate.EventBlockerOpened)) + len(e.events(gate.EventContentionWoken)); n != 0 {
			t.Fatalf("%d retry, woken or blocker events before the retry was due, want 0", n)
		}
		if got := e.held("bob", gate.KindAuto); len(got) != 0 {
			t.Fatalf("bob holds %q before his retry, want nothing", got)
		}
		if s := mustStatus(e.t, e.c); len(s.Contentions) != 1 || s.Contentions[0].ID != con.ID {
			t.Fatalf("status contentions %+v, want the pending %s", s.Contentions, con.ID)
		}
	})
}

// TestReleaseWakesWaiter: the holder released within the window; the
// waiting write is granted at the release, recorded as woken by it, and its
// retry never runs.
func TestReleaseWakesWaiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		con := contend(t, e)
		e.advanceTo(150 * time.Second)
		if _, err := e.c.End(e.ctx, "alice", "worker exited"); err != nil {
			t.Fatalf("End(alice) = %v", err)
		}
		synctest.Wait()
		r, err := e.c.WaitContention(e.ctx, con.ID)
		if err != nil || r.Outcome != leasegate.Granted {
			t.Fatalf("WaitContention after the release = %s, %v; want granted", r.Outcome, err)
		}
		if got, want := e.held("bob", gate.KindAuto), []string{"src/a.go", "src/a_test.go"}; !slices.Equal(got, want) {
			t.Fatalf("bob holds %q after the release, want %q", got, want)
		}
		woken := e.events(gate.EventContentionWoken)
		if len(woken) != 1 || woken[0].Actor != "bob" || !woken[0].At.Equal(e.at(150*time.Second)) || woken[0].Reason != string(gate.EventReleased) {
			t.Fatalf("contention.woken events %+v, want one for bob at the release (%s)", woken, e.at(150*time.Second))
		}
		e.advanceTo(retryAt + 10*time.Minute)
		if n := grantsOf(e, "bob"); n != 2 {
			t.Fatalf("%d grants to bob, want 2 (the file and its pair, once)", n)
		}
		if at := e.events(gate.EventGranted)[2].At; !at.Equal(e.at(150 * time.Second)) {
			t.Fatalf("bob's grant at %s, want exactly the release at %s", at, e.at(150*time.Second))
		}
		if n := len(e.events(gate.EventBlockerOpened)) + len(e.events(gate.EventRetry)); n != 0 {
			t.Fatalf("%d retry or blocker events after an early grant, want 0", n)
		}
	})
}

func grantsOf(e *env, owner string) int {
	n := 0
	for _, ev := range e.events(gate.EventGranted) {
		if ev.Lease.Owner.Name == owner {
			n++
		}
	}
	return n
}

// TestContentionBlockerAfterRetry: still held at +180 s, the one retry
// opens a blocker report with the holder, its age, the 3m0s interval and
// the prober's evidence, kept in the book and written as .md and .json.
func TestContentionBlockerAfterRetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		con := contend(t, e)
		e.advanceTo(retryAt)
		r, err := e.c.WaitContention(e.ctx, con.ID)
		if err != nil || r.Outcome != leasegate.Blocked || r.Blocker == nil {
			t.Fatalf("WaitContention after the retry = %s, %v; want blocked with a report", r.Outcome, err)
		}
		rep := *r.Blocker
		checkReport(t, e, rep)
		if got, ok := blockerOf(e.c, rep.ID); !ok || got.Status != blocker.StatusOpen {
			t.Fatalf("Blocker(%s) = %s (found %t), want open in the book", rep.ID, got.Status, ok)
		}
		if open := mustBlockers(e.t, e.c, false); len(open) != 1 || open[0].ID != rep.ID {
			t.Fatalf("open blockers %v, want just %s", open, rep.ID)
		}
		checkReportFiles(t, e.blockerDir, rep)
		e.advanceTo(retryAt + 10*time.Minute)
		if n := len(e.events(gate.EventRetry)); n != 1 {
			t.Fatalf("%d contention.retry events, want exactly 1", n)
		}
		if n := len(e.events(gate.EventBlockerOpened)); n != 1 {
			t.Fatalf("%d blockers opened, want 1", n)
		}
		if got := e.held("bob", gate.KindAuto); len(got) != 0 {
			t.Fatalf("blocked bob holds %q, want nothing", got)
		}
		if w, _ := e.c.WaitBlocker(cancelled(), rep.ID); w.Outcome != leasegate.Blocked {
			t.Fatalf("WaitBlocker with no resolution = %s, want blocked", w.Outcome)
		}
	})
}

// TestBlockerReportWrittenAfterFullDisk: report files that cannot be
// written when the blocker opens (here the directory's name is taken by a
// file, as a full disk refuses them) are written at the next minute sweep
// once they can be.
func TestBlockerReportWrittenAfterFullDisk(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		if err := os.WriteFile(e.blockerDir, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		con := contend(t, e)
		e.advanceTo(retryAt)
		r, err := e.c.WaitContention(e.ctx, con.ID)
		if err != nil || r.Outcome != leasegate.Blocked || r.Blocker == nil {
			t.Fatalf("WaitContention after the retry = %s, %v; want blocked with a report", r.Outcome, err)
		}
		if err := os.Remove(e.blockerDir); err != nil {
			t.Fatal(err)
		}
		e.advanceTo(retryAt + time.Minute)
		checkReportFiles(t, e.blockerDir, *r.Blocker)
	})
}

// checkReport checks the contract's fields of a blocker report opened by
// the retry at retryAt.
func checkReport(t *testing.T, e *env, rep blocker.Report) {
	t.Helper()
	h := rep.Holder
	switch {
	case rep.Path != "src/a.go" || rep.Requester.Name != "bob" || rep.Status != blocker.StatusOpen:
		t.Fatalf("report on %s by %s (%s), want src/a.go by bob, open", rep.Path, rep.Requester.Name, rep.Status)
	case h.Owner.Name != "alice" || h.HeldFor != retryAt:
		t.Fatalf("report holder %s held for %s, want alice for %s", h.Owner.Name, h.HeldFor, retryAt)
	case rep.RetryInterval != 180*time.Second || rep.RetryInterval.String() != "3m0s":
		t.Fatalf("report retry interval %s, want 3m0s", rep.RetryInterval)
	case !rep.FirstDeniedAt.Equal(e.at(deniedAt)) || !rep.RetryAt.Equal(e.at(retryAt)) || !rep.RetriedAt.Equal(e.at(retryAt)):
		t.Fatalf("report denied %s, retry due %s, retried %s; want %s, %s, %s",
			rep.FirstDeniedAt, rep.RetryAt, rep.RetriedAt, e.at(deniedAt), e.at(retryAt), e.at(retryAt))
	case h.Liveness.Status != gate.Alive || !slices.Equal(h.Liveness.Evidence, []string{"pid 4242 running, started 2030-01-02T03:04:05Z"}):
		t.Fatalf("report liveness %+v, want the prober's verdict on alice", h.Liveness)
	case len(rep.HowToResolve) == 0:
		t.Fatal("report says nothing about how to resolve it")
	}
}

// checkReportFiles checks the .md and .json files of a report.
func checkReportFiles(t *testing.T, dir string, rep blocker.Report) {
	t.Helper()
	js, err := os.ReadFile(filepath.Join(dir, rep.ID+".json"))
	if err != nil {
		t.Fatalf("blocker JSON: %v", err)
	}
	var got blocker.Report
	if err := json.Unmarshal(js, &got); err != nil || got.ID != rep.ID || got.RetryInterval != 180*time.Second {
		t.Fatalf("blocker JSON decodes to %s with retry %s (%v), want %s with 3m0s", got.ID, got.RetryInterval, err, rep.ID)
	}
	if !strings.Contains(string(js), `"retry_interval_ns": 180000000000`) {
		t.Errorf("blocker JSON has no retry interval in ns:\n%s", js)
	}
	md, err := os.ReadFile(filepath.Join(dir, rep.ID+".md"))
	if err != nil {
		t.Fatalf("blocker Markdown: %v", err)
	}
	for _, want := range []string{rep.ID, "src/a.go", "alice", "retry=3m0s", "pid 4242 running"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("blocker Markdown lacks %q:\n%s", want, md)
		}
	}
}

// TestReleaseWakesWaitersInTurn: several owners wait on one lease; its
// release grants the file to the one denied first, and the others keep
// waiting, now on that owner's lease, whatever order the coordinator
// keeps its contentions in.
func TestReleaseWakesWaitersInTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		e.live.set("alice", gate.Alive, "pid 4242 running, started 2030-01-02T03:04:05Z")
		e.mutate("alice", "src/a.go")
		var waiters []string
		for i := range 16 {
			name := fmt.Sprintf("w%02d", i)
			e.register(name)
			e.advanceTo(time.Duration(i+1) * time.Second)
			if r := e.mutate(name, "src/a.go"); r.Outcome != leasegate.Contended {
				t.Fatalf("Mutate(%s, src/a.go) = %s, want contended", name, r.Outcome)
			}
			waiters = append(waiters, name)
		}
		e.advanceTo(30 * time.Second)
		if _, err := e.c.End(e.ctx, "alice", "worker exited"); err != nil {
			t.Fatalf("End(alice) = %v", err)
		}
		synctest.Wait()
		woken := e.events(gate.EventContentionWoken)
		var actors []string
		for _, ev := range woken {
			actors = append(actors, ev.Actor)
		}
		if len(woken) != 1 || woken[0].Actor != waiters[0] {
			t.Fatalf("contentions woken for %v, want one, for %s, denied first", actors, waiters[0])
		}
		s := mustStatus(e.t, e.c)
		if len(s.Contentions) != len(waiters)-1 {
			t.Fatalf("%d contentions wait after the release, want %d", len(s.Contentions), len(waiters)-1)
		}
		for _, c := range s.Contentions {
			if c.Holder.Owner.Name != waiters[0] {
				t.Errorf("%s waits on %s after the release, want %s's new lease", c.Requester, c.Holder.Owner.Name, waiters[0])
			}
		}
	})
}
