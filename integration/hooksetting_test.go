package integration_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestHookRefusesABadSetting: an agent hook whose timeout variable is not
// a duration refuses the write with the agent's own deny, naming the
// variable in its JSON and on stderr (exit 2), and nothing is granted: it
// took the default with a warning on stderr that no agent shows, and the
// write went through.
func TestHookRefusesABadSetting(t *testing.T) {
	r := newRepo(t, map[string]string{"f.txt": "f\n"})
	out, errs, code := r.lgWith(toolWrite("s1", r.dir, "f.txt"), `LEASEGATE_HOOK_TIMEOUT=soon`, "hook", "claude-code")
	var deny struct {
		HookSpecificOutput struct{ PermissionDecision, PermissionDecisionReason string }
		StopReason         string
	}
	if err := json.Unmarshal([]byte(out), &deny); err != nil {
		t.Fatalf("hook with LEASEGATE_HOOK_TIMEOUT=soon: exit %d, stdout %q is not the agent's JSON: %v\nstderr: %s", code, out, err, errs)
	}
	const named = `LEASEGATE_HOOK_TIMEOUT="soon"`
	if code != 2 || deny.HookSpecificOutput.PermissionDecision != "deny" ||
		!strings.Contains(deny.HookSpecificOutput.PermissionDecisionReason, named) || !strings.Contains(deny.StopReason, named) || !strings.Contains(errs, named) {
		t.Fatalf("hook with LEASEGATE_HOOK_TIMEOUT=soon: exit %d, stdout %s, stderr %s; want exit 2, a deny naming %s in both", code, out, errs, named)
	}
	if h := r.holders(); len(h) != 0 {
		t.Fatalf("holders after the refusal = %v, want none", h)
	}
}
