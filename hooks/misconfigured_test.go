package hooks_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/hooks"
)

// TestRunMisconfigured: a hook call the hook cannot make as configured is
// refused where the agent shows it, naming the cause: a tool call denied
// and the session halted (exit 2), a turn end halted (exit 0, as exit 2
// would make the agent go on), unreadable input denied.
func TestRunMisconfigured(t *testing.T) {
	cause := errors.New(`hook: LEASEGATE_HOOK_TIMEOUT="soon": want a positive duration like 5s`)
	tests := []struct {
		name, in   string
		agent      hooks.Agent
		code       int
		wantStdout []string
	}{
		{"claude write", `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/w/a","content":"x"}}`,
			hooks.ClaudeCode, 2, []string{`"permissionDecision":"deny"`, `"continue":false`, `LEASEGATE_HOOK_TIMEOUT=\"soon\"`}},
		{"claude read", `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/w/a"}}`,
			hooks.ClaudeCode, 2, []string{`"permissionDecision":"deny"`, `LEASEGATE_HOOK_TIMEOUT`}},
		{"claude turn end", `{"session_id":"s","cwd":"/w","hook_event_name":"Stop"}`,
			hooks.ClaudeCode, 0, []string{`"continue":false`, `"stopReason":"leasegate: hook: LEASEGATE_HOOK_TIMEOUT`}},
		{"gemini write", `{"session_id":"s","cwd":"/w","hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":{"file_path":"/w/a","content":"x"}}`,
			hooks.Gemini, 2, []string{`"decision":"deny"`, `LEASEGATE_HOOK_TIMEOUT`}},
		{"unreadable input", `{`, hooks.ClaudeCode, 2, []string{`"permissionDecision":"deny"`, `LEASEGATE_HOOK_TIMEOUT`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := hooks.RunMisconfigured(tt.agent, strings.NewReader(tt.in), cause)
			if out.Code != tt.code {
				t.Errorf("RunMisconfigured(%s) exit = %d, want %d", tt.name, out.Code, tt.code)
			}
			for _, w := range tt.wantStdout {
				if !strings.Contains(out.Stdout, w) {
					t.Errorf("RunMisconfigured(%s) stdout = %s, want it to hold %s", tt.name, out.Stdout, w)
				}
			}
			if tt.code == hooks.ExitBlock && !strings.Contains(out.Stderr, cause.Error()) {
				t.Errorf("RunMisconfigured(%s) stderr = %q, want the cause", tt.name, out.Stderr)
			}
		})
	}
}
