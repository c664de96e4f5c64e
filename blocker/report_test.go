package blocker_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

func TestNew(t *testing.T) {
	r := report()
	if r.Holder.HeldFor != 12*time.Minute+30*time.Second {
		t.Errorf("New(...).Holder.HeldFor = %v, want 12m30s (retried at minus acquired at)", r.Holder.HeldFor)
	}
	if r.Status != blocker.StatusOpen || r.Resolution != nil {
		t.Errorf("New(...) status %q, resolution %v; want open and none", r.Status, r.Resolution)
	}
	if r.Reason != gate.ReasonHeldByOther {
		t.Errorf("New(...).Reason = %q, want %q by default", r.Reason, gate.ReasonHeldByOther)
	}
	if r.RetryInterval != 180*time.Second {
		t.Errorf("New(...).RetryInterval = %v, want 3m0s", r.RetryInterval)
	}
	h := r.Holder
	if h.LeaseID != "01JNQ4A0B1C2D3E4F5G6H7J8K9" || h.FencingToken != 42 || h.Kind != gate.KindAuto || h.Owner.Name != "bob" {
		t.Errorf("New(...).Holder = %+v, want bob's auto lease with token 42", h)
	}
	want := []string{
		"leasegate resolve 01JNQ5Z6S4B3M2X8K7V9T0R1YA --retry  # after the holder commits or releases the file",
		"leasegate evict 01JNQ4A0B1C2D3E4F5G6H7J8K9 --reason 'holder gone or stuck (blocker 01JNQ5Z6S4B3M2X8K7V9T0R1YA)'  # if the holder is gone or stuck; then retry",
		"leasegate resolve 01JNQ5Z6S4B3M2X8K7V9T0R1YA --deny  # fail the write with EBUSY and let the worker continue",
		"leasegate resolve 01JNQ5Z6S4B3M2X8K7V9T0R1YA --abort  # end the worker",
	}
	if !slices.Equal(r.HowToResolve, want) {
		t.Errorf("New(...).HowToResolve =\n%q\nwant\n%q", r.HowToResolve, want)
	}
}

func TestNewDefaultsAndCopies(t *testing.T) {
	in := input()
	in.Paths = nil
	in.RetryInterval = 0
	in.Reason = gate.ReasonTokenInvalid
	in.FirstDeniedAt = firstDenied.In(time.FixedZone("CET", 3600))
	r := blocker.New(in)
	if !slices.Equal(r.Paths, []string{"src/foo.go"}) {
		t.Errorf("New(no paths).Paths = %q, want just the path", r.Paths)
	}
	if r.RetryInterval != 180*time.Second {
		t.Errorf("New(no interval).RetryInterval = %v, want retry at minus first denied, 3m0s", r.RetryInterval)
	}
	if r.Reason != gate.ReasonTokenInvalid {
		t.Errorf("New(reason %q).Reason = %q", in.Reason, r.Reason)
	}
	if r.FirstDeniedAt.Location() != time.UTC {
		t.Errorf("New(...).FirstDeniedAt = %v, want UTC", r.FirstDeniedAt)
	}

	in = input()
	r = blocker.New(in)
	in.Paths[0] = "changed"
	in.HolderLiveness.Evidence[0] = "changed"
	if r.Paths[0] != "src/foo.go" || r.Holder.Liveness.Evidence[0] == "changed" {
		t.Errorf("New(...) shares slices with its input: paths %q, evidence %q", r.Paths, r.Holder.Liveness.Evidence)
	}
}

// TestHowToResolveIsShell runs each command line through sh with
// leasegate defined as a function printing its arguments: hostile ids
// arrive as one argument each and the comments stay comments.
func TestHowToResolveIsShell(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skipf("sh not found: %v", err)
	}
	in := input()
	in.ID = "x'; touch pwned #"
	in.Holder.ID = "lease $(id) `id`"
	r := blocker.New(in)
	want := [][]string{
		{"resolve", in.ID, "--retry"},
		{"evict", string(in.Holder.ID), "--reason", "holder gone or stuck (blocker " + in.ID + ")"},
		{"resolve", in.ID, "--deny"},
		{"resolve", in.ID, "--abort"},
	}
	for i, line := range r.HowToResolve {
		out, err := exec.Command(sh, "-c", "leasegate() { printf '%s\\n' \"$@\"; }\n"+line).Output()
		if err != nil {
			t.Fatalf("sh -c %q: %v", line, err)
		}
		if got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"); !slices.Equal(got, want[i]) {
			t.Errorf("sh -c %q: leasegate got %q, want %q", line, got, want[i])
		}
	}
}
