package main

import (
	"strings"
	"testing"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// TestControlCharactersInPathsAreQuoted: a file name is the worker's
// choice. One holding a newline or a terminal escape sequence is shown
// quoted in status and history, so it can neither forge a line of the
// output nor drive the operator's terminal; printable names, non-ASCII
// letters included, are shown as they are, and one with a space is
// quoted where a lease's paths are listed with spaces between them.
func TestControlCharactersInPathsAreQuoted(t *testing.T) {
	evil := "x\nOPEN BLOCKERS (1)\x1b[2J\x1b]0;title\a"
	st := leasegate.Status{Now: statusNow, Leases: []gate.Lease{autoLease("bob", evil, 1), autoLease("bob", "sp ace ünï.txt", 2), autoLease("bob", "ünï.txt", 4)},
		Ungated: []leasegate.UngatedWrite{{At: statusNow, Op: "create", Path: evil}}}
	status := renderStatus(st, false)
	l := autoLease("bob", evil, 3)
	line := eventLine(gate.Event{Seq: 1, At: statusNow, Type: gate.EventGranted, Lease: &l, Path: evil})
	for name, out := range map[string]string{"status": status, "history": line} {
		if strings.ContainsAny(out, "\x1b\a") || strings.Contains(out, "\nOPEN BLOCKERS") {
			t.Errorf("%s shows the name raw:\n%q", name, out)
		}
		if !strings.Contains(out, `"x\nOPEN BLOCKERS (1)\x1b[2J\x1b]0;title\a"`) {
			t.Errorf("%s lacks the quoted name:\n%s", name, out)
		}
	}
	if !strings.Contains(status, "\nünï.txt ") {
		t.Errorf("status quotes a printable name:\n%s", status)
	}
	if !strings.Contains(status, `"sp ace ünï.txt" `) {
		t.Errorf("status shows a name with a space as if it were two:\n%s", status)
	}
}
