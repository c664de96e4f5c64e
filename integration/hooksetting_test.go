package integration_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestHookRefusesABadSetting: an agent hook whose timeout variable is not
// a duration, or that is given --json (parsed, and of no use: its answer
// is always the agent's JSON), refuses the write with the agent's own
// deny, naming the cause in its JSON and on stderr (exit 2), and nothing
// is granted: the timeout was taken for the default with a warning on
// stderr that no agent shows, --json was ignored, and the write went
// through.
func TestHookRefusesABadSetting(t *testing.T) {
	r := newRepo(t, map[string]string{"f.txt": "f\n"})
	for _, tt := range []struct{ env, named string }{
		{`LEASEGATE_HOOK_TIMEOUT=soon`, `LEASEGATE_HOOK_TIMEOUT="soon"`},
		{"", "--json does not apply"},
	} {
		args := []string{"hook", "claude-code"}
		if tt.env == "" {
			args = append(args, "--json")
		}
		refusedNaming(t, r, tt.env, tt.named, args...)
	}
	if h := r.holders(); len(h) != 0 {
		t.Fatalf("holders after the refusals = %v, want none", h)
	}
}

// refusedNaming runs an agent hook's write with env and args and fails
// the test unless Claude Code's deny, its stop reason and stderr name
// named, with exit 2.
func refusedNaming(t *testing.T, r *repo, env, named string, args ...string) {
	t.Helper()
	out, errs, code := r.lgWith(toolWrite("s1", r.dir, "f.txt"), env, args...)
	var deny struct {
		HookSpecificOutput struct{ PermissionDecision, PermissionDecisionReason string }
		StopReason         string
	}
	if err := json.Unmarshal([]byte(out), &deny); err != nil {
		t.Fatalf("%s %q: exit %d, stdout %q is not the agent's JSON: %v\nstderr: %s", env, args, code, out, err, errs)
	}
	if code != 2 || deny.HookSpecificOutput.PermissionDecision != "deny" ||
		!strings.Contains(deny.HookSpecificOutput.PermissionDecisionReason, named) || !strings.Contains(deny.StopReason, named) || !strings.Contains(errs, named) {
		t.Fatalf("%s %q: exit %d, stdout %s, stderr %s; want exit 2, a deny naming %s in both", env, args, code, out, errs, named)
	}
}
