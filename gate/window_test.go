package gate_test

import (
	"errors"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// TestContractWindows pins the contract's windows: 3m0s and 30s.
func TestContractWindows(t *testing.T) {
	ws := gate.ContractWindows()
	if gate.DefaultRetryAfter != 3*time.Minute || gate.DefaultIdleAfter != 30*time.Second ||
		ws.Retry != (gate.Window{After: 3 * time.Minute, From: gate.FromContract}) || ws.Idle != (gate.Window{After: 30 * time.Second, From: gate.FromContract}) {
		t.Fatalf("contract windows %s, %s (%+v), want 3m0s and 30s", gate.DefaultRetryAfter, gate.DefaultIdleAfter, ws)
	}
}

// TestWindowsValidate: a named window is positive and at most the
// contract's; an unnamed one (zero) is fine.
func TestWindowsValidate(t *testing.T) {
	w := func(d time.Duration) gate.Window { return gate.Window{After: d, From: gate.FromFlag} }
	for _, tc := range []struct {
		name string
		ws   gate.Windows
		ok   bool
	}{
		{"none named", gate.Windows{}, true},
		{"the contract's", gate.ContractWindows(), true},
		{"shorter", gate.Windows{Retry: w(time.Second), Idle: w(time.Nanosecond)}, true},
		{"retry longer", gate.Windows{Retry: w(gate.DefaultRetryAfter + 1)}, false},
		{"idle longer", gate.Windows{Idle: w(time.Minute)}, false},
		{"retry negative", gate.Windows{Retry: w(-time.Second)}, false},
		{"idle negative", gate.Windows{Idle: w(-1)}, false},
	} {
		err := tc.ws.Validate()
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, gate.ErrWindow)) {
			t.Errorf("%s: Validate(%+v) = %v, want ok %v", tc.name, tc.ws, err, tc.ok)
		}
	}
	if gate.ValidRetryAfter(0, true) == nil || gate.ValidIdleAfter(0, true) == nil {
		t.Error("a required zero window was accepted")
	}
}

// TestWindowsOr: what an owner names stays with its source; the rest is
// the coordinator's, marked so.
func TestWindowsOr(t *testing.T) {
	own := gate.Windows{Retry: gate.Window{After: time.Second, From: gate.FromEnv}}
	got := own.Or(gate.Windows{Retry: gate.Window{After: time.Minute, From: gate.FromFlag}, Idle: gate.Window{After: 10 * time.Second, From: gate.FromFlag}})
	want := gate.Windows{Retry: own.Retry, Idle: gate.Window{After: 10 * time.Second, From: gate.FromCoordinator}}
	if got != want {
		t.Fatalf("Or = %+v, want %+v", got, want)
	}
}
