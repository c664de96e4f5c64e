package integration_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookRefusesPathNoLeaseCanName: a Claude Code write of a path inside
// the workspace that no lease can name (over the 4096-byte limit, or
// holding a NUL byte) is refused with the reason, not let through
// ungated as if it lay outside the workspace.
func TestHookRefusesPathNoLeaseCanName(t *testing.T) {
	r := newRepo(t, nil)
	long := filepath.Join(r.dir, strings.Repeat(strings.Repeat("d", 200)+"/", 21)+"f.txt")
	for name, c := range map[string]struct{ path, want string }{
		"too long": {long, "over the 4096 byte limit"},
		"nul":      {filepath.Join(r.dir, "nul\x00x.txt"), "contains a NUL byte"},
	} {
		body, err := json.Marshal(map[string]any{"session_id": "s1", "cwd": r.dir, "hook_event_name": "PreToolUse",
			"tool_name": "Write", "tool_input": map[string]string{"file_path": c.path, "content": "x"}})
		if err != nil {
			t.Fatal(err)
		}
		ev := filepath.Join(t.TempDir(), "event.json")
		if err := os.WriteFile(ev, body, 0o600); err != nil {
			t.Fatal(err)
		}
		out, errs, code := r.lgStdin(ev, "hook", "claude-code")
		var got struct {
			Out struct{ PermissionDecision, PermissionDecisionReason string } `json:"hookSpecificOutput"`
		}
		_ = json.Unmarshal([]byte(out), &got)
		if got.Out.PermissionDecision != "deny" || !strings.Contains(got.Out.PermissionDecisionReason, c.want) ||
			!strings.Contains(got.Out.PermissionDecisionReason, "no path a lease can name") {
			t.Errorf("%s: hook claude-code exited %d, stdout %s, stderr %s; want a refusal saying %q", name, code, out, errs, c.want)
		}
	}
}
