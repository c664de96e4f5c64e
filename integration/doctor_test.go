package integration_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorAnswering: doctor runs each installed hook command on a
// harmless call; a command that cannot run (a moved binary: the agent
// would take exit 127 as "allow") is reported, with exit 1, and so is one
// that refuses the call for a refused setting, saying it refuses every
// call (it said the agent lets every write through).
func TestDoctorAnswering(t *testing.T) {
	r := newRepo(t, nil)
	env := append(append([]string(nil), r.env...), "HOME="+t.TempDir())
	lg := func(args ...string) (string, int) {
		t.Helper()
		return lgIn(t, r.dir, env, args...)
	}
	if out, code := lg("doctor"); code != 1 || !strings.Contains(out, "claude-code: not installed") {
		t.Fatalf("doctor with nothing installed: exit %d:\n%s", code, out)
	}
	// Under --json, stdout is one document with [] for no agent (it was
	// null) and the error one JSON object on stderr (it was a line of text).
	out, errs, code := r.lgWith("", "HOME="+t.TempDir(), "doctor", "--json")
	var doc struct {
		Agents []any `json:"agents"`
	}
	var e struct {
		Error struct {
			Message string `json:"message"`
			Exit    int    `json:"exit"`
		} `json:"error"`
	}
	mustJSON(t, out, &doc)
	if code != 1 || doc.Agents == nil || !strings.Contains(out, `"agents": []`) {
		t.Fatalf("doctor --json with nothing installed: exit %d, want 1 and \"agents\": []:\n%s", code, out)
	}
	mustJSON(t, errs, &e)
	if e.Error.Exit != 1 || !strings.Contains(e.Error.Message, "no agent hooks installed") {
		t.Fatalf("doctor --json with nothing installed said on stderr %q, want one JSON error, exit 1", errs)
	}
	lg("install", "claude-code")
	if out, code := lg("doctor"); code != 0 || !strings.Contains(out, "claude-code: ok: 7 hooks") || !strings.Contains(out, "answers") {
		t.Fatalf("doctor after install: exit %d:\n%s", code, out)
	}
	bad := append(append([]string(nil), env...), "LEASEGATE_HOOK_TIMEOUT=soon")
	if out, code := lgIn(t, r.dir, bad, "doctor"); code != 1 || !strings.Contains(out, "refuses even a harmless call") ||
		!strings.Contains(out, `LEASEGATE_HOOK_TIMEOUT="soon"`) || strings.Contains(out, "lets every write through") {
		t.Fatalf("doctor with a hook timeout that is not a duration: exit %d:\n%s", code, out)
	}
	settings := filepath.Join(".claude", "settings.local.json")
	r.write(settings, strings.ReplaceAll(r.read(settings), bin, "/nonexistent/leasegate"))
	out, code = lg("doctor")
	if code != 1 || !strings.Contains(out, "claude-code: NOT GATING") || !strings.Contains(out, "does not answer a harmless call") {
		t.Fatalf("doctor with a moved binary: exit %d:\n%s", code, out)
	}
}

// TestDoctorMCP: doctor reports, per agent, whether leasegate's MCP
// server is registered and whether the registered command answers MCP
// initialize over stdio; a command that is gone, or that does not speak
// MCP, is reported with exit 1.
func TestDoctorMCP(t *testing.T) {
	r := newRepo(t, nil)
	env := append(append([]string(nil), r.env...), "HOME="+t.TempDir())
	lg := func(args ...string) (string, int) {
		t.Helper()
		return lgIn(t, r.dir, env, args...)
	}
	lg("install", "claude-code")
	out, code := lg("doctor")
	if code != 0 || !strings.Contains(out, `claude-code: mcp: ok: "leasegate" in `+filepath.Join(r.dir, ".mcp.json")+" answers initialize (leasegate") ||
		!strings.Contains(out, "gemini: mcp: not registered") {
		t.Fatalf("doctor after install: exit %d:\n%s", code, out)
	}
	out, _ = lg("doctor", "--json")
	if !strings.Contains(out, `"mcp_servers"`) || !strings.Contains(out, `"server": "leasegate`) {
		t.Fatalf("doctor --json lacks the MCP server's answer:\n%s", out)
	}
	mute := filepath.Join(t.TempDir(), "leasegate-mute")
	if err := os.WriteFile(mute, []byte("#!/bin/sh\necho not json\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ command, want string }{
		{"/nonexistent/leasegate", "no such file"},
		{mute, "not JSON-RPC"},
	} {
		r.write(".mcp.json", strings.ReplaceAll(r.read(".mcp.json"), bin, tc.command))
		out, code := lg("doctor")
		if code != 1 || !strings.Contains(out, "claude-code: mcp: NOT WORKING") || !strings.Contains(out, tc.want) {
			t.Fatalf("doctor with the MCP command %s: exit %d, want 1 and %q:\n%s", tc.command, code, tc.want, out)
		}
		r.write(".mcp.json", strings.ReplaceAll(r.read(".mcp.json"), tc.command, bin))
	}
}

// TestNoHomeSaid: with HOME unset (a service, a bare CI job), install
// gemini installs the hooks and says that Gemini CLI's trust could not be
// checked, exit 0 (it failed with exit 1 after installing them, saying
// only "$HOME is not defined"), and doctor names what it needs HOME for.
func TestNoHomeSaid(t *testing.T) {
	r := newRepo(t, nil)
	var env []string
	for _, kv := range r.env {
		if !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	lg := lgFunc(t, r.dir, env)
	out, code := lg("install", "gemini")
	if code != 0 || !strings.Contains(out, "NOT CHECKED") || !strings.Contains(out, "HOME") {
		t.Errorf("install gemini without HOME: exit %d:\n%s\nwant 0, saying Gemini CLI's trust was not checked for want of HOME", code, out)
	}
	if _, err := os.Stat(filepath.Join(r.dir, ".gemini", "settings.json")); err != nil {
		t.Errorf("install gemini without HOME installed nothing: %v", err)
	}
	if out, code := lg("doctor"); code != 1 || !strings.Contains(out, "doctor: ") || !strings.Contains(out, "set HOME") {
		t.Errorf("doctor without HOME: exit %d:\n%s\nwant 1, naming what it needs HOME for", code, out)
	}
}
