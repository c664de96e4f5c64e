package coordinator_test

import (
	"encoding/json"
	"errors"
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

// blocked brings bob's write of src/a.go, held by alice, to an open
// blocker and returns its id.
func blocked(t *testing.T, e *env) string {
	t.Helper()
	e.mutate("alice", "src/a.go")
	r := e.mutate("bob", "src/a.go")
	e.advanceTo(3 * time.Minute)
	res, err := e.c.WaitContention(e.ctx, r.Contention.ID)
	if err != nil || res.Outcome != leasegate.Blocked {
		t.Fatalf("WaitContention = %s, %v; want blocked", res.Outcome, err)
	}
	return res.Blocker.ID
}

// TestResolve: each operator instruction answers the held mutation, and
// the report's status and files follow; a retry that finds the path still
// held keeps the blocker open.
func TestResolve(t *testing.T) {
	tests := []struct {
		name       string
		release    bool // alice's worker ends before the operator answers
		action     blocker.Action
		want       leasegate.Outcome // of Resolve and of the held mutation
		wantStatus blocker.Status
		bobHolds   []string
	}{
		{name: "retry while held", action: blocker.ActionRetry, want: leasegate.Blocked, wantStatus: blocker.StatusOpen},
		{name: "retry after release", release: true, action: blocker.ActionRetry, want: leasegate.Granted,
			wantStatus: blocker.StatusRetried, bobHolds: []string{"src/a.go", "src/a_test.go"}},
		{name: "deny", action: blocker.ActionDeny, want: leasegate.Denied, wantStatus: blocker.StatusDenied},
		{name: "abort", action: blocker.ActionAbort, want: leasegate.Aborted, wantStatus: blocker.StatusAborted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := startEnv(t)
				id := blocked(t, e)
				if tt.release {
					if _, err := e.c.End(e.ctx, "alice", "worker exited"); err != nil {
						t.Fatalf("End(alice) = %v", err)
					}
				}
				res, err := e.c.Resolve(e.ctx, id, tt.action, "operator", "note")
				if err != nil || res.Outcome != tt.want || res.Blocker.Status != tt.wantStatus {
					t.Fatalf("Resolve(%s) = %s with the report %s, %v; want %s, %s", tt.action, res.Outcome, res.Blocker.Status, err, tt.want, tt.wantStatus)
				}
				held, err := e.c.WaitBlocker(cancelled(), id)
				if err != nil || held.Outcome != tt.want {
					t.Fatalf("WaitBlocker after %s = %s, %v; want %s", tt.action, held.Outcome, err, tt.want)
				}
				if got := e.held("bob", gate.KindAuto); !slices.Equal(got, tt.bobHolds) {
					t.Fatalf("bob holds %q after %s, want %q", got, tt.name, tt.bobHolds)
				}
				if rep, _ := blockerOf(e.c, id); rep.Status != tt.wantStatus {
					t.Fatalf("book has the blocker %s, want %s", rep.Status, tt.wantStatus)
				}
				if tt.wantStatus == blocker.StatusOpen {
					return
				}
				checkResolvedFile(t, e.blockerDir, id, tt.wantStatus)
				if _, err := e.c.Resolve(e.ctx, id, blocker.ActionDeny, "operator", ""); !errors.Is(err, blocker.ErrNotOpen) {
					t.Fatalf("resolving a %s blocker: %v, want ErrNotOpen", tt.wantStatus, err)
				}
				if n := len(e.events(gate.EventBlockerResolved)); n != 1 {
					t.Fatalf("%d blocker.resolved events, want 1", n)
				}
			})
		})
	}
}

// TestResolveDenySaysHowTheWriterHearsIt: a denial reaches a sidecar's
// worker as EBUSY from its syscall, and an agent's hook session (an owner
// no sidecar registered) as its tool call refused: the operator is told
// which.
func TestResolveDenySaysHowTheWriterHearsIt(t *testing.T) {
	for _, sidecar := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			e := startEnv(t)
			if err := e.c.Register(e.ctx, leasegate.Registration{Owner: gate.Owner{Name: "bob"}, TreeEnds: sidecar}); err != nil {
				t.Fatal(err)
			}
			id := blocked(t, e)
			res, err := e.c.Resolve(e.ctx, id, blocker.ActionDeny, "operator", "")
			want, not := "tool call is refused", "EBUSY"
			if sidecar {
				want, not = not, want
			}
			if err != nil || !strings.Contains(res.Message, want) || strings.Contains(res.Message, not) {
				t.Fatalf("deny of a blocker of bob (sidecar %v): %q, %v; want it to say %q", sidecar, res.Message, err, want)
			}
		})
	}
}

// checkResolvedFile checks that the report's JSON file shows the
// resolution.
func checkResolvedFile(t *testing.T, dir, id string, want blocker.Status) {
	t.Helper()
	js, err := os.ReadFile(filepath.Join(dir, id+".json"))
	if err != nil {
		t.Fatalf("blocker JSON: %v", err)
	}
	var rep blocker.Report
	if err := json.Unmarshal(js, &rep); err != nil || rep.Status != want || rep.Resolution == nil || rep.Resolution.By != "operator" {
		t.Fatalf("blocker file status %s resolution %+v (%v), want %s by operator", rep.Status, rep.Resolution, err, want)
	}
}

// TestResolveRetryKeepsBlockerUntilGranted: a retry while held leaves the
// mutation held; a later retry after the holder released grants it.
func TestResolveRetryKeepsBlockerUntilGranted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		id := blocked(t, e)
		if res, err := e.c.Resolve(e.ctx, id, blocker.ActionRetry, "operator", "try now"); err != nil || res.Outcome != leasegate.Blocked {
			t.Fatalf("Resolve(retry) while held = %s, %v; want blocked", res.Outcome, err)
		}
		mustRetriedRecorded(t, e, id)
		waited := make(chan leasegate.Result, 1)
		go func() {
			r, _ := e.c.WaitBlocker(e.ctx, id)
			waited <- r
		}()
		synctest.Wait()
		select {
		case r := <-waited:
			t.Fatalf("WaitBlocker returned %s while the blocker is open", r.Outcome)
		default:
		}
		e.advanceTo(time.Hour)
		if _, err := e.c.End(e.ctx, "alice", "worker exited"); err != nil {
			t.Fatalf("End(alice) = %v", err)
		}
		if res, err := e.c.Resolve(e.ctx, id, blocker.ActionRetry, "operator", ""); err != nil || res.Outcome != leasegate.Granted {
			t.Fatalf("Resolve(retry) after release = %s, %v; want granted", res.Outcome, err)
		}
		if r := <-waited; r.Outcome != leasegate.Granted || len(r.Leases) != 2 {
			t.Fatalf("held mutation = %s with %d leases, want granted with 2", r.Outcome, len(r.Leases))
		}
	})
}

// TestResolveRefusesBadInput: unknown ids and actions are refused and
// leave the blocker open.
func TestResolveRefusesBadInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		id := blocked(t, e)
		if _, err := e.c.Resolve(e.ctx, "01J0000000000000000000000Z", blocker.ActionDeny, "op", ""); !errors.Is(err, gate.ErrNotFound) {
			t.Errorf("Resolve(unknown id) = %v, want ErrNotFound", err)
		}
		if _, err := e.c.Resolve(e.ctx, id, blocker.Action("shrug"), "op", ""); !errors.Is(err, blocker.ErrUnknownAction) {
			t.Errorf("Resolve(shrug) = %v, want ErrUnknownAction", err)
		}
		if rep, _ := blockerOf(e.c, id); rep.Status != blocker.StatusOpen {
			t.Fatalf("blocker %s after refused resolutions, want open", rep.Status)
		}
	})
}

// mustRetriedRecorded fails unless the ledger has one blocker.retried
// event for blocker id, by the operator, on its file and naming the holder.
func mustRetriedRecorded(t *testing.T, e *env, id string) {
	t.Helper()
	evs := e.events(gate.EventBlockerRetried)
	if len(evs) != 1 {
		t.Fatalf("blocker.retried events %+v, want one for the retry while held", evs)
	}
	ev := evs[0]
	if ev.Actor != "operator" || ev.Path == "" || ev.LeaseID == gate.NoLease ||
		!strings.Contains(ev.Reason, "retry of blocker "+id+": still held by alice") || !strings.Contains(ev.Reason, "try now") {
		t.Fatalf("blocker.retried = %+v, want by operator on the file, the holder's lease, and its note", ev)
	}
	if len(e.events(gate.EventBlockerResolved)) != 0 {
		t.Fatalf("a retry while held closed the blocker")
	}
}
