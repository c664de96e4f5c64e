package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

// TestControlCharactersInPathsAreQuoted: a file name is the worker's
// choice. One holding a newline or a terminal escape sequence is shown
// quoted in status and history, so it can neither forge a line of the
// output nor drive the operator's terminal; printable names, spaces and
// non-ASCII letters included, are shown as they are.
func TestControlCharactersInPathsAreQuoted(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	evil := "x\nOPEN BLOCKERS (1)\x1b[2J\x1b]0;title\a"
	lease := func(p string, token uint64) gate.Lease {
		return gate.Lease{ID: "01L", Owner: gate.Owner{Name: "bob"}, Kind: gate.KindAuto, State: gate.StateActive,
			Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{p}}, FencingToken: token, AcquiredAt: now}
	}
	st := leasegate.Status{Now: now, Leases: []gate.Lease{lease(evil, 1), lease("sp ace ünï.txt", 2)},
		Ungated: []leasegate.UngatedWrite{{At: now, Op: "create", Path: evil}}}
	var status bytes.Buffer
	printStatus(&status, st, api.Health{}, &workspace.Workspace{Root: "/w"}, "rule", false)
	l := lease(evil, 3)
	line := eventLine(gate.Event{Seq: 1, At: now, Type: gate.EventGranted, Lease: &l, Path: evil})
	for name, out := range map[string]string{"status": status.String(), "history": line} {
		if strings.ContainsAny(out, "\x1b\a") || strings.Contains(out, "\nOPEN BLOCKERS") {
			t.Errorf("%s shows the name raw:\n%q", name, out)
		}
		if !strings.Contains(out, `"x\nOPEN BLOCKERS (1)\x1b[2J\x1b]0;title\a"`) {
			t.Errorf("%s lacks the quoted name:\n%s", name, out)
		}
	}
	if !strings.Contains(status.String(), "sp ace ünï.txt ") {
		t.Errorf("status quotes a printable name:\n%s", status.String())
	}
}
