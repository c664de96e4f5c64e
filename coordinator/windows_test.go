package coordinator_test

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
)

// named returns windows named by src; zero durations name none.
func named(retry, idle time.Duration, src gate.WindowSource) gate.Windows {
	var ws gate.Windows
	if retry != 0 {
		ws.Retry = gate.Window{After: retry, From: src}
	}
	if idle != 0 {
		ws.Idle = gate.Window{After: idle, From: src}
	}
	return ws
}

func (e *env) registerWith(name string, ws gate.Windows) {
	e.t.Helper()
	if err := e.c.Register(e.ctx, leasegate.Registration{Owner: gate.Owner{Name: name}, Windows: ws}); err != nil {
		e.t.Fatalf("Register(%s, %+v) = %v", name, ws, err)
	}
}

// TestWindowsBelongToTheirOwners: on one coordinator with the contract's
// defaults, each waiter's retry comes its own retry window after its
// denial and each stopped holder is released its own idle window after
// its stop, two owners with different windows at once; the ledger records
// each window with its source.
func TestWindowsBelongToTheirOwners(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		e.registerWith("carol", named(2*time.Second, 0, gate.FromFlag))
		e.registerWith("dave", named(0, 5*time.Second, gate.FromEnv))
		e.mutate("alice", "a.txt")
		e.mutate("dave", "d.txt")
		carol, bob := e.mutate("carol", "a.txt"), e.mutate("bob", "d.txt")
		for _, tc := range []struct {
			who  string
			r    leasegate.Result
			want gate.Window
		}{
			{"carol", carol, gate.Window{After: 2 * time.Second, From: gate.FromFlag}},
			{"bob", bob, gate.Window{After: gate.DefaultRetryAfter, From: gate.FromCoordinator}},
		} {
			if tc.r.Outcome != leasegate.Contended || tc.r.Contention.RetryAfter != tc.want ||
				tc.r.Contention.RetryAt.Sub(tc.r.Contention.FirstDeniedAt) != tc.want.After {
				t.Fatalf("%s's contention %+v, want retry %s after the denial", tc.who, tc.r.Contention, tc.want)
			}
		}
		for _, ev := range e.events(gate.EventContention) {
			var d struct {
				RetryAt    time.Time   `json:"retry_at"`
				RetryAfter gate.Window `json:"retry_after"`
			}
			if err := json.Unmarshal(ev.Data, &d); err != nil || d.RetryAt.Sub(ev.At) != d.RetryAfter.After {
				t.Fatalf("contention of %s records %s (%v): retry_at - at != the window", ev.Actor, ev.Data, err)
			}
		}
		if _, err := e.c.Stop(e.ctx, "alice", "turn ended"); err != nil {
			t.Fatal(err)
		}
		if at, err := e.c.Stop(e.ctx, "dave", "turn ended"); err != nil || !at.Equal(e.at(5*time.Second)) {
			t.Fatalf("Stop(dave) = %s, %v; want the release at 5s", at, err)
		}
		e.advanceTo(2*time.Second - time.Millisecond)
		if n := len(e.events(gate.EventRetry)); n != 0 {
			t.Fatalf("%d retries before carol's 2s window, want 0", n)
		}
		e.advanceTo(2 * time.Second)
		if rs := e.events(gate.EventRetry); len(rs) != 1 || rs[0].Actor != "carol" || !rs[0].At.Equal(e.at(2*time.Second)) {
			t.Fatalf("retries at 2s: %+v, want carol's alone", rs)
		}
		e.advanceTo(5*time.Second - time.Millisecond)
		if got := e.held("dave", gate.KindAuto); !slices.Equal(got, []string{"d.txt"}) {
			t.Fatalf("dave holds %q before his 5s window ended", got)
		}
		e.advanceTo(5 * time.Second)
		if got := e.held("dave", gate.KindAuto); len(got) != 0 {
			t.Fatalf("dave holds %q at the end of his 5s window", got)
		}
		if got := e.held("alice", gate.KindAuto); !slices.Equal(got, []string{"a.txt"}) {
			t.Fatalf("alice (the coordinator's 30s) holds %q at 5s, want a.txt", got)
		}
		e.advanceTo(30 * time.Second)
		if got := e.held("alice", gate.KindAuto); len(got) != 0 {
			t.Fatalf("alice holds %q at the end of her 30s window", got)
		}
		for _, ev := range e.events(gate.EventOwnerStopped) {
			var d struct {
				IdleAfter gate.Window `json:"idle_after"`
				ReleaseAt time.Time   `json:"release_at"`
			}
			want := map[string]gate.Window{"alice": {After: gate.DefaultIdleAfter, From: gate.FromCoordinator}, "dave": {After: 5 * time.Second, From: gate.FromEnv}}[ev.Actor]
			if err := json.Unmarshal(ev.Data, &d); err != nil || d.IdleAfter != want || d.ReleaseAt.Sub(ev.At) != want.After {
				t.Fatalf("owner.stopped of %s records %s (%v), want window %+v", ev.Actor, ev.Data, err, want)
			}
		}
	})
}

// TestRequestRetryWindow: a mutation that names its own retry window (a
// hook call's --retry-after) is retried after it, whatever its owner
// registered.
func TestRequestRetryWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		e.mutate("alice", "a.txt")
		w := gate.Window{After: 3 * time.Second, From: gate.FromFlag}
		r, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: []string{"a.txt"}, RetryAfter: w})
		if err != nil || r.Contention == nil || !r.Contention.RetryAt.Equal(e.at(3*time.Second)) || r.Contention.RetryAfter != w {
			t.Fatalf("Mutate(bob, 3s window) = %+v, %v; want the retry at 3s", r.Contention, err)
		}
	})
}

// TestWindowsInStatusAndReplay: status shows each owner's windows with
// their source, and a restarted coordinator has them from the ledger.
func TestWindowsInStatusAndReplay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, func(c *coordinator.Config) {
			c.Windows.Idle = gate.Window{After: 10 * time.Second, From: gate.FromFlag}
		})
		e.registerWith("carol", named(time.Second, 2*time.Second, gate.FromFlag))
		want := map[string]gate.Windows{
			"alice": {Retry: gate.Window{After: gate.DefaultRetryAfter, From: gate.FromCoordinator}, Idle: gate.Window{After: 10 * time.Second, From: gate.FromCoordinator}},
			"carol": named(time.Second, 2*time.Second, gate.FromFlag),
		}
		for round := range 2 {
			s := mustStatus(e.t, e.c)
			if s.Defaults.Idle.After != 10*time.Second || s.IdleAfter != 10*time.Second || s.RetryAfter != gate.DefaultRetryAfter {
				t.Fatalf("round %d: coordinator windows %+v", round, s.Defaults)
			}
			for _, o := range s.Owners {
				if w, ok := want[o.Name]; ok && o.Windows != w {
					t.Fatalf("round %d: status of %s shows %+v, want %+v", round, o.Name, o.Windows, w)
				}
			}
			e.reopen()
		}
	})
}

// TestWindowsRefused: an owner may not name a window longer than the
// contract's, nor a zero or negative one.
func TestWindowsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		for _, ws := range []gate.Windows{
			named(gate.DefaultRetryAfter+time.Nanosecond, 0, gate.FromFlag),
			named(0, gate.DefaultIdleAfter+time.Nanosecond, gate.FromEnv),
			named(-time.Second, 0, gate.FromFlag),
			{Idle: gate.Window{After: -1, From: gate.FromFlag}},
		} {
			err := e.c.Register(e.ctx, leasegate.Registration{Owner: gate.Owner{Name: "carol"}, Windows: ws})
			var de *gate.DeniedError
			if !errors.As(err, &de) || de.Reason != gate.ReasonInputInvalid {
				t.Errorf("Register(carol, %+v) = %v, want INPUT_SCHEMA_INVALID", ws, err)
			}
		}
		_, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: []string{"a.txt"},
			RetryAfter: gate.Window{After: time.Hour, From: gate.FromFlag}})
		var de *gate.DeniedError
		if !errors.As(err, &de) || de.Reason != gate.ReasonInputInvalid {
			t.Errorf("Mutate with a 1h retry window = %v, want INPUT_SCHEMA_INVALID", err)
		}
	})
}
