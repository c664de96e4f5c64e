package integration_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStatusShowsCoordinator: status names the coordinator that answers:
// its pid, version, start, socket, log and the windows it gives owners
// that name none, with their source; --json has the same.
func TestStatusShowsCoordinator(t *testing.T) {
	r := newRepo(t, nil)
	pid := strconv.Itoa(r.server.Process.Pid)
	out := r.mustLG("status")
	for _, want := range []string{"coordinator pid " + pid, "leasegate ", "started ", "socket   " + r.dir + "/.git/leasegate/coord.sock",
		"log      ", "retry after 1.5s (flag), stop-idle 1s (flag)"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	var s struct {
		StartedAt   time.Time `json:"started_at"`
		Coordinator struct {
			PID     int    `json:"pid"`
			Version string `json:"version"`
			Socket  string `json:"socket"`
			Log     string `json:"log"`
		} `json:"coordinator"`
		Defaults struct {
			Retry struct {
				AfterNS int64  `json:"after_ns"`
				From    string `json:"from"`
			} `json:"retry"`
		} `json:"default_windows"`
	}
	mustJSON(t, r.mustLG("status", "--json"), &s)
	c := s.Coordinator
	if strconv.Itoa(c.PID) != pid || c.Version == "" || c.Socket == "" || c.Log == "" || s.StartedAt.IsZero() ||
		s.Defaults.Retry.AfterNS != retryAfter.Nanoseconds() || s.Defaults.Retry.From != "flag" {
		t.Errorf("status --json coordinator: %+v, started %v, default retry %+v", c, s.StartedAt, s.Defaults.Retry)
	}
}

// TestJSONEmptyListsAreArrays: lists with nothing in them are [] in
// every --json output, never null.
func TestJSONEmptyListsAreArrays(t *testing.T) {
	r := newRepo(t, map[string]string{"nothing.txt": "nothing happened to it\n"})
	for _, args := range [][]string{{"status", "--json"}, {"blockers", "--json"}, {"history", "nothing.txt", "--json"}} {
		out := r.mustLG(args...)
		if strings.Contains(out, "null") {
			t.Errorf("leasegate %v has null:\n%s", args, out)
		}
	}
	// A name that is no lease, blocker or file, and that the ledger never
	// saw, is not an empty history but a mistake.
	if _, errs, code := r.lg("history", "ghost.txt", "--json"); code != 2 || !strings.Contains(errs, "LEASE_NOT_FOUND") {
		t.Errorf("history of a name nothing bears: exit %d %s, want 2 LEASE_NOT_FOUND", code, errs)
	}
	var s map[string]json.RawMessage
	mustJSON(t, r.mustLG("status", "--json"), &s)
	for _, k := range []string{"owners", "leases", "contentions", "blockers", "ungated"} {
		if string(s[k]) != "[]" {
			t.Errorf("status --json %q = %s, want []", k, s[k])
		}
	}
}

// TestEventsFollowEndsWithCoordinator: events --follow streams until the
// coordinator goes away, then says so and exits 5; --text (the default
// on a terminal) prints readable lines.
func TestEventsFollowEndsWithCoordinator(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	r.mustLG("acquire", "a.txt", "--as", "carol")
	if out := r.mustLG("events", "--text"); !strings.Contains(out, "lease.granted") || strings.Contains(out, "{") {
		t.Errorf("events --text:\n%s", out)
	}
	if out := r.mustLG("events"); !strings.HasPrefix(out, "{") {
		t.Errorf("events to a pipe is not JSON lines:\n%s", out)
	}
	pty := exec.Command("python3", "-c", "import pty, sys; sys.exit(pty.spawn(sys.argv[1:]) >> 8)", bin, "events", "--workspace", r.dir)
	pty.Env = r.env
	if out, err := pty.CombinedOutput(); err != nil || !strings.Contains(string(out), "lease.granted") || strings.Contains(string(out), `"type"`) {
		t.Errorf("events on a terminal (%v):\n%s", err, out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "events", "--follow")
	cmd.Dir, cmd.Env = r.dir, r.env
	var out, errb syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "events --follow prints the grant", func() bool { return strings.Contains(out.String(), "lease.granted") })
	r.stopServer()
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 5 || !strings.Contains(errb.String(), "went away") {
		t.Errorf("events --follow after the coordinator stopped: %v, want exit 5 saying it went away\nstderr: %s", err, errb.String())
	}
}
