package gate_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/gate"
)

// TestInputReasonOrigins pins where each input reason code comes from:
// CleanPath's refusals and the scope's path budget carry their code as a
// typed *InputError, ReasonOf reads it back, errors.Is matches its
// sentinel, and AsDenied turns it into the denial a caller answers with
// without touching its message.
func TestInputReasonOrigins(t *testing.T) {
	many := make([]string, gate.MaxPaths+1)
	for i := range many {
		many[i] = "f" + strings.Repeat("x", i)
	}
	tests := []struct {
		name string
		err  error
		want gate.Reason
		is   error
	}{
		{name: "absolute path", err: cleanErr("/etc/passwd"), want: gate.ReasonOutsideWorkspace, is: gate.ErrOutside},
		{name: "escaping path", err: cleanErr("a/../../x"), want: gate.ReasonOutsideWorkspace, is: gate.ErrOutside},
		{name: "parent", err: cleanErr(".."), want: gate.ReasonOutsideWorkspace, is: gate.ErrOutside},
		{name: "empty path", err: cleanErr(""), want: gate.ReasonInputInvalid, is: gate.ErrInputInvalid},
		{name: "NUL byte", err: cleanErr("a\x00b"), want: gate.ReasonInputInvalid, is: gate.ErrInputInvalid},
		{name: "too long", err: cleanErr(strings.Repeat("a", gate.MaxPathLen+1)), want: gate.ReasonInputInvalid, is: gate.ErrInputInvalid},
		{name: "workspace root", err: cleanErr("a/.."), want: gate.ReasonInputInvalid, is: gate.ErrInputInvalid},
		{name: "no paths", err: scopeErr(t), want: gate.ReasonBudgetExceeded, is: gate.ErrBudget},
		{name: "too many paths", err: scopeErr(t, many...), want: gate.ReasonBudgetExceeded, is: gate.ErrBudget},
		{name: "unclean scope path", err: scopeErr(t, "a/./b"), want: gate.ReasonInputInvalid, is: gate.ErrInputInvalid},
		{name: "absolute scope path", err: scopeErr(t, "/etc/passwd"), want: gate.ReasonOutsideWorkspace, is: gate.ErrOutside},
		{name: "untyped error", err: errors.New("something else"), want: gate.ReasonInputInvalid, is: gate.ErrInputInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.err == nil {
				t.Fatalf("%s: no error, want %s", tt.name, tt.want)
			}
			if got := gate.ReasonOf(tt.err); got != tt.want {
				t.Errorf("ReasonOf(%q) = %s, want %s", tt.err, got, tt.want)
			}
			var ie *gate.InputError
			if errors.As(tt.err, &ie) && !errors.Is(tt.err, tt.is) {
				t.Errorf("errors.Is(%q, %v) = false, want true", tt.err, tt.is)
			}
			var de *gate.DeniedError
			if d := gate.AsDenied(tt.err); !errors.As(d, &de) || de.Reason != tt.want || ie != nil && de.Message != ie.Message {
				t.Errorf("AsDenied(%q) = %v, want %s with the same message", tt.err, d, tt.want)
			}
		})
	}
}

// TestAsDeniedKeepsADenial: a denial passes through AsDenied unchanged.
func TestAsDeniedKeepsADenial(t *testing.T) {
	in := &gate.DeniedError{Reason: gate.ReasonNotFound, Message: "no lease x"}
	if got := gate.AsDenied(in); got != error(in) {
		t.Fatalf("AsDenied(%v) = %v, want it unchanged", in, got)
	}
	if got := gate.ReasonOf(in); got != gate.ReasonNotFound {
		t.Fatalf("ReasonOf(%v) = %s, want %s", in, got, gate.ReasonNotFound)
	}
}

func cleanErr(p string) error {
	_, err := gate.CleanPath(p)
	return err
}

// scopeErr is the denial Decide gives a write of paths, as an error.
func scopeErr(t *testing.T, paths ...string) error {
	t.Helper()
	d := gate.Decide(write("a", paths...), gate.NewTable(), t0)
	if d.Granted {
		t.Fatalf("Decide(write %q) granted, want a denial", paths)
	}
	return &gate.DeniedError{Reason: d.Reason, Message: d.Message}
}
