package hooks_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/hooks"
)

// TestDiagnoseMCPEachFormat: DiagnoseMCP reads leasegate's server from
// each agent's file format, starts a registered command that answers
// initialize, reports one that is gone or not leasegate's, and says
// nothing of a file without the server.
func TestDiagnoseMCPEachFormat(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "leasegate-fake")
	answer := `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"leasegate","version":"9.9"}}}`
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nread line\necho '"+answer+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, a := range hooks.Agents() {
		for _, tc := range []struct {
			command, want string
			problem       bool
		}{
			{command: fake, want: "leasegate 9.9"},
			{command: filepath.Join(dir, "leasegate-gone"), want: "no such file", problem: true},
			{command: "other-mcp", want: "not `leasegate mcp`", problem: true},
		} {
			file := hooks.MCPPath(a, t.TempDir(), false)
			if d := hooks.DiagnoseMCP(context.Background(), a, dir, file); d.Registered {
				t.Fatalf("%s: no file, yet registered: %+v", a, d)
			}
			if _, err := hooks.InstallMCP(a, file, "/usr/bin/leasegate"); err != nil {
				t.Fatalf("%s: install: %v", a, err)
			}
			b, _ := os.ReadFile(file)
			if err := os.WriteFile(file, []byte(strings.ReplaceAll(string(b), "/usr/bin/leasegate", tc.command)), 0o644); err != nil {
				t.Fatal(err)
			}
			d := hooks.DiagnoseMCP(context.Background(), a, dir, file)
			got := d.Server
			if tc.problem {
				got = d.Problem
			}
			if !d.Registered || d.OK() == tc.problem || !strings.Contains(got, tc.want) {
				t.Errorf("%s with %s: %+v, want %q", a, tc.command, d, tc.want)
			}
		}
	}
}

// TestDiagnoseMCPStartsNoCoordinator: the MCP server doctor tries is told
// to start no coordinator (LEASEGATE_NO_START=1; the real server answers
// initialize without one), so a check leaves none running where none ran.
// The fake server puts what it was told in the version it answers.
func TestDiagnoseMCPStartsNoCoordinator(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "leasegate-fake")
	answer := `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"leasegate","version":"no-start=$LEASEGATE_NO_START"}}}`
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nread line\necho \""+strings.ReplaceAll(answer, `"`, `\"`)+"\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LEASEGATE_NO_START", "")
	file := hooks.MCPPath(hooks.ClaudeCode, t.TempDir(), false)
	if _, err := hooks.InstallMCP(hooks.ClaudeCode, file, fake); err != nil {
		t.Fatal(err)
	}
	if d := hooks.DiagnoseMCP(context.Background(), hooks.ClaudeCode, dir, file); !d.OK() || !strings.Contains(d.Server, "leasegate no-start=1") {
		t.Errorf("doctor's MCP server = %+v, want it told LEASEGATE_NO_START=1", d)
	}
}
