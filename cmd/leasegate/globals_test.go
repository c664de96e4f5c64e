package main

import (
	"slices"
	"testing"
)

func TestSplitGlobals(t *testing.T) {
	for _, tt := range []struct {
		args          []string
		globals, rest []string
		name          string
	}{
		{[]string{"--workspace", "/w", "--json", "status", "--all"}, []string{"--workspace", "/w", "--json"}, []string{"--all"}, "status"},
		{[]string{"--workspace=/w", "run", "--as", "a", "--", "sh"}, []string{"--workspace=/w"}, []string{"--as", "a", "--", "sh"}, "run"},
		{[]string{"--bogus", "status"}, nil, []string{"status"}, "--bogus"},
		{[]string{"-V"}, nil, []string{}, "-V"},
		{[]string{"--json"}, []string{"--json"}, nil, ""},
	} {
		g, name, rest := splitGlobals(tt.args)
		if !slices.Equal(g, tt.globals) || name != tt.name || !slices.Equal(rest, tt.rest) {
			t.Errorf("splitGlobals(%q) = %q, %q, %q; want %q, %q, %q", tt.args, g, name, rest, tt.globals, tt.name, tt.rest)
		}
	}
	run, _ := lookup("run")
	if got := withGlobals(run, []string{"--json"}, []string{"--as", "a", "--", "sh", "--json"}); !slices.Equal(got, []string{"--json", "--as", "a", "--", "sh", "--json"}) {
		t.Errorf("withGlobals(run) = %q", got)
	}
	ledger, _ := lookup("ledger")
	if got := withGlobals(ledger, []string{"--workspace", "/w"}, []string{"check"}); !slices.Equal(got, []string{"check", "--workspace", "/w"}) {
		t.Errorf("withGlobals(ledger) = %q", got)
	}
}

func TestSuggest(t *testing.T) {
	for in, want := range map[string]string{"statsu": "status", "stauts": "status", "blocker": "blockers", "hist": "history", "instal": "install", "xyzzy": ""} {
		if got := suggest(in); got != want {
			t.Errorf("suggest(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWantsJSON(t *testing.T) {
	if !wantsJSON([]string{"status", "--json"}) || wantsJSON([]string{"run", "--as", "a", "--", "jq", "--json"}) {
		t.Error("wantsJSON: --json before -- counts, after it is the worker's")
	}
}
