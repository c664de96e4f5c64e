package integration_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/leasegate/leasegate/mcp"
)

// TestMCPCheckoutBeforeHooks: an agent's MCP server checks files out
// before any of the agent's hooks has run, so it cannot know the session's
// id and registers the agent's process under a name made from its pid;
// the hooks of that session then register it and gate a write of a file
// in the check-out. The coordinator joins the hooks' registration to the
// server's owner, by the kernel's word that the hook runs under the same
// agent process: one owner, the write granted at once, no second owner.
func TestMCPCheckoutBeforeHooks(t *testing.T) {
	r := newRepo(t, nil)
	dir := t.TempDir()
	goFifo, doneFifo := filepath.Join(dir, "go"), filepath.Join(dir, "done")
	for _, f := range []string{goFifo, doneFifo} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	prompt := eventFile(t, map[string]any{"session_id": "s9", "cwd": r.dir, "hook_event_name": "UserPromptSubmit", "prompt": "go"})
	write := eventFile(t, map[string]any{"session_id": "s9", "cwd": r.dir, "hook_event_name": "PreToolUse", "tool_name": "Write",
		"tool_input": map[string]any{"file_path": filepath.Join(r.dir, "docs", "a.md"), "content": "x"}})
	out := filepath.Join(dir, "write.out")
	// The agent runs the server on its stdin and stdout (fd 3 keeps stdin
	// for it: a background job's own stdin is /dev/null), then, when the
	// test says so, two hook calls as its children, as Claude Code would.
	script := fmt.Sprintf(`exec 3<&0; "$LG" mcp <&3 3<&- & read _ < %s; "$LG" hook claude-code < %s > /dev/null; `+
		`"$LG" hook claude-code < %s > %s; echo $? > %s; wait`, goFifo, prompt, write, out, doneFifo)
	cs := mcpSession(t, r, script)
	var got mcp.LeaseOutput
	if res := callTool(t, cs, "lease_acquire", map[string]any{"paths": []string{"docs/**"}, "ttl": "1h"}, &got); res.IsError || !strings.HasPrefix(got.Me, "cc-pid-") {
		t.Fatalf("acquire docs/** = %s %+v, want a check-out for the agent's process (cc-pid-N)", toolText(res), got)
	}
	if err := os.WriteFile(goFifo, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, err := os.ReadFile(doneFifo)
	if err != nil {
		t.Fatal(err)
	}
	decision, _ := os.ReadFile(out)
	if strings.TrimSpace(string(code)) != "0" || strings.Contains(string(decision), `"deny"`) {
		t.Fatalf("the hook's write of docs/a.md = exit %s %s, want it granted to the check-out's owner %s", code, decision, got.Me)
	}
	var owners []string
	for _, o := range r.status().Owners {
		owners = append(owners, o.Name)
	}
	if !slices.Equal(owners, []string{got.Me}) {
		t.Errorf("owners %v, want the one owner %s (no cc-s9 beside it)", owners, got.Me)
	}
	var chk mcp.CheckOutput
	if res := callTool(t, cs, "leases_check", map[string]any{"paths": []string{"docs/a.md"}}, &chk); res.IsError || chk.Paths[0].State != mcp.HeldByMe {
		t.Errorf("check docs/a.md after the hook's write = %s, want held by me", toolText(res))
	}
}
