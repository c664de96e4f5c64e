package integration_test

import (
	"strings"
	"testing"
	"time"
)

// TestNestedRunRefused: a `leasegate run` inside a worker cannot gate (the
// outer run gates it already, as its own owner), so it says so, without a
// reason that holds for one gate only, and exits 2 before it registers
// anyone or starts its command, and the outer worker goes on gated as
// before. Under each gate, outside and inside.
func TestNestedRunRefused(t *testing.T) {
	for _, g := range gates(t) {
		t.Run(g, func(t *testing.T) { nestedRunRefused(t, g) })
	}
}

func nestedRunRefused(t *testing.T, g string) {
	r := newGateRepo(t, g, map[string]string{"a.txt": "a\n"})
	w := r.worker("alice", bin+" run --gate "+g+" --as inner -- sh -c 'echo started-inner'; echo nested=$?; echo x > a.txt")
	if code := w.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("worker exited %d; output:\n%s", code, w.out)
	}
	out := w.out.String()
	for _, want := range []string{"nested=2", "already runs under leasegate run"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "seccomp") {
		t.Errorf("the refusal gives a reason of the seccomp gate alone:\n%s", out)
	}
	if strings.Contains(out, "started-inner") {
		t.Errorf("the nested run started its command:\n%s", out)
	}
	for _, e := range r.history("") {
		if e.Actor == "inner" {
			t.Errorf("the nested run registered its owner: %s by %s", e.Type, e.Actor)
		}
	}
	if evs := r.history("a.txt"); len(evs) == 0 || evs[0].Actor != "alice" {
		t.Errorf("history of a.txt = %+v, want alice's gated write", evs)
	}
}
