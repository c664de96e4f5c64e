package gate_test

import (
	"strings"
	"testing"

	"github.com/leasegate/leasegate/gate"
)

// TestCheckoutNamingAPathTwice: a check-out that names one path twice
// (a.go and ./a.go, cleaned alike) is refused as invalid input naming the
// path, not granted as a lease on "a.go, a.go"; a write's paths are left
// as they come.
func TestCheckoutNamingAPathTwice(t *testing.T) {
	w := newWorld(t)
	for _, s := range []gate.Scope{fileScope("a.go", "b.go", "a.go"), sparse("src/**", "src/**")} {
		d := w.decide(checkout("bob", s), t0)
		if d.Granted || d.Reason != gate.ReasonInputInvalid || !strings.Contains(d.Message, "is named twice") {
			t.Errorf("check-out of %v = %s %q, want %s naming the path twice", s.Paths, d.Reason, d.Message, gate.ReasonInputInvalid)
		}
	}
	if d := w.decide(write("bob", "a.go", "a.go"), t0); !d.Granted {
		t.Errorf("a write naming a.go twice = %s %q, want granted", d.Reason, d.Message)
	}
}
