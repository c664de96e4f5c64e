package integration_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shirou/gopsutil/v3/process"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
)

// ownWindow is the window the owners of these tests name, far below the
// defaults of the coordinator they find running.
const ownWindow = time.Second

// slack bounds how late a 1 s window may fire on a loaded machine; the
// exact intervals are asserted on the ledger's timestamps.
const slack = 20 * time.Second

// TestWindowsBelongToTheOwner: a coordinator started with the contract's
// windows (by `acquire`, with no flags), then a holder `run --idle-after
// 1s` and a waiter `run --retry-after 1s`: the waiter's one retry comes 1 s
// after its denial, and the stopped holder is released 1 s after its stop.
// Status and the blocker report show each owner's windows and their source.
func TestWindowsBelongToTheOwner(t *testing.T) {
	r := newCheckout(t, map[string]string{"a.txt": "a\n", "c.txt": "c\n"})
	r.mustLG("acquire", "--as", "starter", "c.txt")
	r.dial()
	assertContractDefaults(t, r.status())

	holder := r.runWith("holder", "echo h >> a.txt; sleep 60", "--idle-after", "1s")
	eventually(t, slack, "holder's lease of a.txt", func() bool { return r.holders()["a.txt"] == "holder" })
	waiter := r.runWith("waiter", "echo w >> a.txt", "--retry-after", "1s")

	var blockerID string
	eventually(t, slack, "the waiter's blocker after its one retry", func() bool {
		bs := r.openBlockers()
		if len(bs) == 1 {
			blockerID = bs[0].ID
		}
		return blockerID != ""
	})
	var con contention
	var retry time.Time
	eventually(t, slack, "the waiter's retry in the ledger", func() bool {
		con, retry = contentionAndRetry(t, r.history("a.txt"), "waiter")
		return !retry.IsZero()
	})
	if got := con.RetryAt.Sub(con.at); got != ownWindow {
		t.Fatalf("ledger: retry_at %s after the contention, want the waiter's window %s", got, ownWindow)
	}
	if con.RetryAfter != (gate.Window{After: ownWindow, From: gate.FromFlag}) {
		t.Fatalf("ledger: contention records window %+v, want 1s from the flag", con.RetryAfter)
	}
	if waited := retry.Sub(con.at); waited < ownWindow || waited > slack {
		t.Fatalf("the retry came %s after the denial, want %s (within %s)", waited, ownWindow, slack)
	}
	t.Logf("waiter's retry %s after its denial (window %s)", retry.Sub(con.at), con.RetryAfter)
	rep := mustBlocker(t, r, blockerID)
	if rep.RetryInterval != ownWindow || rep.RetryFrom != gate.FromFlag || rep.Holder.IdleAfter != ownWindow || rep.Holder.IdleFrom != gate.FromFlag {
		t.Fatalf("blocker report windows: retry %s (%s), holder idle %s (%s); want 1s (flag) both",
			rep.RetryInterval, rep.RetryFrom, rep.Holder.IdleAfter, rep.Holder.IdleFrom)
	}
	s := r.status()
	assertWindows(t, s, "holder", gate.Windows{Retry: gate.Window{After: gate.DefaultRetryAfter, From: gate.FromCoordinator},
		Idle: gate.Window{After: ownWindow, From: gate.FromFlag}})
	assertWindows(t, s, "waiter", gate.Windows{Retry: gate.Window{After: ownWindow, From: gate.FromFlag},
		Idle: gate.Window{After: gate.DefaultIdleAfter, From: gate.FromCoordinator}})
	text := r.mustLG("status")
	if !strings.Contains(text, "1s (flag)") || !strings.Contains(text, "3m0s (contract)") {
		t.Fatalf("status does not show the windows and their sources:\n%s", text)
	}

	r.mustLG("stop", "--as", "holder")
	stopped, released := stopAndRelease(t, r, "holder")
	if stopped.IdleAfter != (gate.Window{After: ownWindow, From: gate.FromFlag}) || stopped.ReleaseAt.Sub(stopped.at) != ownWindow {
		t.Fatalf("ledger: owner.stopped records %+v (release %s after the stop), want 1s from the flag",
			stopped.IdleAfter, stopped.ReleaseAt.Sub(stopped.at))
	}
	if after := released.Sub(stopped.at); after < ownWindow || after > slack {
		t.Fatalf("the stopped holder was released %s after its stop, want %s (within %s)", after, ownWindow, slack)
	}
	t.Logf("holder released %s after its stop (window %s)", released.Sub(stopped.at), stopped.IdleAfter)
	r.mustLG("resolve", blockerID, "--retry")
	if code := waiter.wait(t, slack); code != 0 {
		t.Fatalf("waiter exit %d after the holder's release:\n%s", code, waiter.out)
	}
	_ = holder.cmd.Process.Kill()
}

// TestHookWindowsBelongToTheHook: after `acquire` started the coordinator
// with the contract's windows, `hook claude-code --retry-after 1s` has its
// one retry 1 s after the denial, and a hook session whose Stop hook names
// `--idle-after 1s` is released 1 s after that Stop.
func TestHookWindowsBelongToTheHook(t *testing.T) {
	r := newCheckout(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	r.mustLG("acquire", "--as", "holder", "a.txt")
	r.dial()
	assertContractDefaults(t, r.status())

	start := time.Now()
	_, errs, code := r.hook(toolWrite("s1", r.dir, "a.txt"), "--retry-after", "1s", "--timeout", "30s")
	if code == 0 {
		t.Fatalf("the hook allowed a write of a held file: %s", errs)
	}
	if took := time.Since(start); took > slack {
		t.Fatalf("the hook answered after %s, want about its 1s retry window", took)
	}
	con, _ := contentionAndRetry(t, r.history("a.txt"), "cc-s1")
	if got := con.RetryAt.Sub(con.at); got != ownWindow || con.RetryAfter.From != gate.FromFlag {
		t.Fatalf("ledger: retry_at %s after the contention (window %+v), want the hook's %s from the flag", got, con.RetryAfter, ownWindow)
	}

	if _, errs, code := r.hook(toolWrite("s2", r.dir, "b.txt")); code != 0 {
		t.Fatalf("hook write of a free file: exit %d: %s", code, errs)
	}
	assertWindows(t, r.status(), "cc-s2", gate.Windows{Retry: gate.Window{After: gate.DefaultRetryAfter, From: gate.FromCoordinator},
		Idle: gate.Window{After: gate.DefaultIdleAfter, From: gate.FromCoordinator}})
	if _, errs, code := r.hook(`{"session_id":"s2","cwd":"`+r.dir+`","hook_event_name":"Stop"}`, "--idle-after", "1s"); code != 0 {
		t.Fatalf("hook Stop: exit %d: %s", code, errs)
	}
	stopped, released := stopAndRelease(t, r, "cc-s2")
	if after := released.Sub(stopped.at); stopped.IdleAfter.After != ownWindow || after < ownWindow || after > slack {
		t.Fatalf("hook session released %s after its stop with window %+v, want %s", after, stopped.IdleAfter, ownWindow)
	}
}

// TestWindowsRefusedAtOnce: a window above the contract's, zero or
// negative is a usage error (exit 2) of every command that takes one,
// from the flag or the environment, before anything starts.
func TestWindowsRefusedAtOnce(t *testing.T) {
	r := newCheckout(t, nil)
	for _, tc := range []struct {
		args []string
		env  string
	}{
		{args: []string{"run", "--as", "w", "--retry-after", "3m1s", "--", "true"}},
		{args: []string{"run", "--as", "w", "--idle-after", "31s", "--", "true"}},
		{args: []string{"run", "--as", "w", "--retry-after", "0s", "--", "true"}},
		{args: []string{"run", "--as", "w", "--", "true"}, env: "LEASEGATE_IDLE_AFTER=-1s"},
		{args: []string{"hook", "claude-code", "--retry-after", "5m"}},
		{args: []string{"hook", "claude-code"}, env: "LEASEGATE_RETRY_AFTER=10m"},
		{args: []string{"serve", "--idle-after", "1m"}},
		{args: []string{"serve"}, env: "LEASEGATE_RETRY_AFTER=soon"},
	} {
		start := time.Now()
		_, errs, code := r.lgEnv(tc.env, tc.args...)
		if code != 2 || !strings.Contains(errs, "after") {
			t.Errorf("%s leasegate %v: exit %d, stderr %q; want a usage error (2) naming the window", tc.env, tc.args, code, errs)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("leasegate %v took %s to refuse", tc.args, took)
		}
	}
	if _, err := os.Stat(filepath.Join(r.dir, ".git", "leasegate", "coord.sock")); err == nil {
		t.Fatal("a refused command started a coordinator")
	}
}

// assertContractDefaults: a coordinator started with no flags has exactly
// the contract's windows, 3m0s and 30s.
func assertContractDefaults(t *testing.T, s leasegate.Status) {
	t.Helper()
	if s.RetryAfter != 3*time.Minute || s.IdleAfter != 30*time.Second || s.Defaults != gate.ContractWindows() {
		t.Fatalf("coordinator windows retry %s idle %s (%+v), want exactly 3m0s and 30s from the contract", s.RetryAfter, s.IdleAfter, s.Defaults)
	}
}

func assertWindows(t *testing.T, s leasegate.Status, owner string, want gate.Windows) {
	t.Helper()
	for _, o := range s.Owners {
		if o.Name == owner {
			if o.Windows != want {
				t.Fatalf("status: %s has windows %+v, want %+v", owner, o.Windows, want)
			}
			return
		}
	}
	t.Fatalf("status: no owner %s", owner)
}

// contention is a contention.heartbeat event's payload and time.
type contention struct {
	at         time.Time
	Requester  string      `json:"requester"`
	Holder     string      `json:"holder"`
	RetryAt    time.Time   `json:"retry_at"`
	RetryAfter gate.Window `json:"retry_after"`
}

// contentionAndRetry finds requester's contention heartbeat and the time
// of its retry in the ledger.
func contentionAndRetry(t *testing.T, evs []gate.Event, requester string) (contention, time.Time) {
	t.Helper()
	var con contention
	for _, e := range evs {
		switch {
		case e.Type == gate.EventContention && e.Actor == requester:
			mustJSON(t, string(e.Data), &con)
			con.at = e.At
		case e.Type == gate.EventRetry && e.Actor == requester && !con.at.IsZero():
			return con, e.At
		}
	}
	if con.at.IsZero() {
		t.Fatalf("no contention of %s in the ledger", requester)
	}
	return con, time.Time{}
}

// stopped is an owner.stopped event's payload and time.
type stopped struct {
	at        time.Time
	IdleAfter gate.Window `json:"idle_after"`
	ReleaseAt time.Time   `json:"release_at"`
}

// stopAndRelease waits for owner's last stop and the stop-idle release
// after it to be in the ledger (a lease's end shows in status a moment
// before it is durable), and returns them.
func stopAndRelease(t *testing.T, r *repo, owner string) (st stopped, released time.Time) {
	t.Helper()
	eventually(t, slack, "the stop-idle release of "+owner+" in the ledger", func() bool {
		st, released = lastStop(t, r.history(""), owner)
		return !released.IsZero()
	})
	return st, released
}

// lastStop finds owner's last stop and the stop-idle release after it.
func lastStop(t *testing.T, evs []gate.Event, owner string) (stopped, time.Time) {
	t.Helper()
	var st stopped
	var released time.Time
	for _, e := range evs {
		switch {
		case e.Type == gate.EventOwnerStopped && e.Actor == owner:
			st = stopped{at: e.At}
			if err := json.Unmarshal(e.Data, &st); err != nil {
				t.Fatalf("owner.stopped data %s: %v", e.Data, err)
			}
			st.at, released = e.At, time.Time{}
		case e.Type == gate.EventReleased && e.Actor == owner && e.Reason == "stop-idle" && !st.at.IsZero():
			released = e.At
		}
	}
	return st, released
}

// dial connects r.client to the coordinator some command started, and
// stops that coordinator when the test ends.
func (r *repo) dial() {
	r.t.Helper()
	cl, err := api.NewClient(api.ClientConfig{Socket: filepath.Join(r.dir, ".git", "leasegate", "coord.sock"), RetryMax: 1})
	if err != nil {
		r.t.Fatal(err)
	}
	h, err := cl.Health(context.Background())
	if err != nil {
		r.t.Fatalf("no coordinator answers: %v", err)
	}
	r.client = cl
	r.t.Cleanup(func() {
		terminate(h.PID)
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if ok, err := process.PidExists(int32(h.PID)); err == nil && !ok {
				return
			}
		}
		kill(h.PID)
	})
}

// runWith starts `leasegate run --as name FLAGS -- sh -c script`.
func (r *repo) runWith(name, script string, flags ...string) *worker {
	r.t.Helper()
	args := append(append([]string{"run", "--as", name}, flags...), "--", "sh", "-c", script)
	return r.start(args...)
}

// hook runs `leasegate hook claude-code FLAGS` with the event on stdin.
func (r *repo) hook(event string, flags ...string) (string, string, int) {
	r.t.Helper()
	return r.lgWith(event, "", append([]string{"hook", "claude-code"}, flags...)...)
}

// lgEnv runs the CLI with one more environment variable ("" for none).
func (r *repo) lgEnv(env string, args ...string) (string, string, int) {
	r.t.Helper()
	return r.lgWith("", env, args...)
}

func toolWrite(session, dir, name string) string {
	return toolWriteAt(session, dir, filepath.Join(dir, name))
}

// toolWriteAt is Claude Code's PreToolUse event of a Write of the file at
// path, from a session in dir.
func toolWriteAt(session, dir, path string) string {
	return `{"session_id":"` + session + `","cwd":"` + dir + `","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"` +
		path + `","content":"x"}}`
}
