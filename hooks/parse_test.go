package hooks_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/leasegate/leasegate/hooks"
)

// readFixture returns a hook input documented by an agent, from testdata.
func readFixture(tb testing.TB, agent hooks.Agent, name string) []byte {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", string(agent), name))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

func TestParseFixtures(t *testing.T) {
	tests := []struct {
		agent   hooks.Agent
		fixture string
		want    hooks.Event
	}{
		{hooks.ClaudeCode, "pretooluse-write.json", hooks.Event{Name: "PreToolUse", Kind: hooks.KindWrite, Session: "s-alice", Cwd: "/repo",
			Tool: "Write", ToolUseID: "toolu_01WRITE", Op: "write", Paths: []string{"/repo/src/app.go"}}},
		{hooks.ClaudeCode, "pretooluse-edit.json", hooks.Event{Name: "PreToolUse", Kind: hooks.KindWrite, Session: "s-alice", Cwd: "/repo",
			Tool: "Edit", ToolUseID: "toolu_01EDIT", Op: "write", Paths: []string{"/repo/src/app.go"}}},
		{hooks.ClaudeCode, "pretooluse-multiedit.json", hooks.Event{Name: "PreToolUse", Kind: hooks.KindWrite, Session: "s-alice", Cwd: "/repo/src",
			Tool: "MultiEdit", ToolUseID: "toolu_01MULTI", Op: "write", Paths: []string{"/repo/src/../docs/guide.md"}}},
		{hooks.ClaudeCode, "pretooluse-notebookedit.json", hooks.Event{Name: "PreToolUse", Kind: hooks.KindWrite, Session: "s-alice", Cwd: "/repo",
			Tool: "NotebookEdit", ToolUseID: "toolu_01NB", Op: "write", Paths: []string{"/repo/notebooks/analysis.ipynb"}}},
		{hooks.ClaudeCode, "pretooluse-bash.json", hooks.Event{Name: "PreToolUse", Kind: hooks.KindShellBefore, Session: "s-alice", Cwd: "/repo",
			Tool: "Bash", ToolUseID: "toolu_01BASH"}},
		{hooks.ClaudeCode, "posttooluse-bash.json", hooks.Event{Name: "PostToolUse", Kind: hooks.KindShellAfter, Session: "s-alice", Cwd: "/repo",
			Tool: "Bash", ToolUseID: "toolu_01BASH"}},
		{hooks.ClaudeCode, "userpromptsubmit.json", hooks.Event{Name: "UserPromptSubmit", Kind: hooks.KindPrompt, Session: "s-alice", Cwd: "/repo"}},
		{hooks.ClaudeCode, "stop.json", hooks.Event{Name: "Stop", Kind: hooks.KindTurnEnd, Session: "s-alice", Cwd: "/repo"}},
		{hooks.ClaudeCode, "subagentstop.json", hooks.Event{Name: "SubagentStop", Kind: hooks.KindSubagentStop, Session: "s-alice", Cwd: "/repo"}},
		{hooks.ClaudeCode, "sessionend.json", hooks.Event{Name: "SessionEnd", Kind: hooks.KindSessionEnd, Session: "s-alice", Cwd: "/repo"}},
		{hooks.Codex, "pretooluse-apply-patch.json", hooks.Event{Name: "PreToolUse", Kind: hooks.KindWrite, Session: "s-codex", Cwd: "/repo",
			Tool: "apply_patch", ToolUseID: "call_patch_1", Op: "apply_patch",
			Paths: []string{"src/new.go", "src/app.go", "docs/old.md", "src/util.go", "src/helpers.go"}}},
		{hooks.Codex, "pretooluse-bash.json", hooks.Event{Name: "PreToolUse", Kind: hooks.KindShellBefore, Session: "s-codex", Cwd: "/repo",
			Tool: "Bash", ToolUseID: "call_shell_1"}},
		{hooks.Codex, "posttooluse-bash.json", hooks.Event{Name: "PostToolUse", Kind: hooks.KindShellAfter, Session: "s-codex", Cwd: "/repo",
			Tool: "Bash", ToolUseID: "call_shell_1"}},
		{hooks.Codex, "userpromptsubmit.json", hooks.Event{Name: "UserPromptSubmit", Kind: hooks.KindPrompt, Session: "s-codex", Cwd: "/repo"}},
		{hooks.Codex, "stop.json", hooks.Event{Name: "Stop", Kind: hooks.KindTurnEnd, Session: "s-codex", Cwd: "/repo"}},
		{hooks.Gemini, "beforetool-write-file.json", hooks.Event{Name: "BeforeTool", Kind: hooks.KindWrite, Session: "s-gemini", Cwd: "/repo",
			Tool: "write_file", Op: "write", Paths: []string{"/repo/src/app.go"}}},
		{hooks.Gemini, "beforetool-replace.json", hooks.Event{Name: "BeforeTool", Kind: hooks.KindWrite, Session: "s-gemini", Cwd: "/repo",
			Tool: "replace", Op: "write", Paths: []string{"src/app.go"}}},
		{hooks.Gemini, "aftertool-shell.json", hooks.Event{Name: "AfterTool", Kind: hooks.KindShellAfter, Session: "s-gemini", Cwd: "/repo",
			Tool: "run_shell_command"}},
		{hooks.Gemini, "beforeagent.json", hooks.Event{Name: "BeforeAgent", Kind: hooks.KindPrompt, Session: "s-gemini", Cwd: "/repo"}},
		{hooks.Gemini, "afteragent.json", hooks.Event{Name: "AfterAgent", Kind: hooks.KindTurnEnd, Session: "s-gemini", Cwd: "/repo"}},
		{hooks.Cursor, "pretooluse-write.json", hooks.Event{Name: "preToolUse", Kind: hooks.KindWrite, Session: "c-cursor", Cwd: "/repo",
			Tool: "Write", Op: "write", Paths: []string{"/repo/src/app.go"}}},
		{hooks.Cursor, "pretooluse-delete.json", hooks.Event{Name: "preToolUse", Kind: hooks.KindWrite, Session: "c-cursor", Cwd: "/repo",
			Tool: "Delete", Op: "unlink", Paths: []string{"src/old.go"}}},
		{hooks.Cursor, "beforesubmitprompt.json", hooks.Event{Name: "beforeSubmitPrompt", Kind: hooks.KindPrompt, Session: "c-cursor", Cwd: "/repo"}},
		{hooks.Cursor, "stop.json", hooks.Event{Name: "stop", Kind: hooks.KindTurnEnd, Session: "c-cursor", Cwd: "/repo"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.agent)+"/"+tt.fixture, func(t *testing.T) {
			got, err := hooks.Parse(tt.agent, readFixture(t, tt.agent, tt.fixture))
			if err != nil {
				t.Fatalf("Parse(%s, %s) error %v", tt.agent, tt.fixture, err)
			}
			tt.want.Agent = tt.agent
			if !sameEvent(got, tt.want) {
				t.Errorf("Parse(%s, %s) = %+v, want %+v", tt.agent, tt.fixture, got, tt.want)
			}
		})
	}
}

func sameEvent(a, b hooks.Event) bool {
	return a.Agent == b.Agent && a.Name == b.Name && a.Kind == b.Kind && a.Session == b.Session && a.Cwd == b.Cwd &&
		a.Tool == b.Tool && a.ToolUseID == b.ToolUseID && a.Op == b.Op && slices.Equal(a.Paths, b.Paths)
}

func TestParseMalformed(t *testing.T) {
	tests := []struct {
		name  string
		agent hooks.Agent
		input string
		want  string
	}{
		{"empty", hooks.ClaudeCode, "", "malformed claude-code hook input: stdin is empty, want the hook's JSON object"},
		{"not json", hooks.ClaudeCode, "hello", "malformed claude-code hook input: stdin is not a JSON object: invalid character 'h' looking for beginning of value"},
		{"array", hooks.Codex, "[]", "malformed codex hook input: stdin is not a JSON object: json: cannot unmarshal array into Go value of type hooks.rawInput"},
		{"no event", hooks.ClaudeCode, `{"session_id":"s"}`, "malformed claude-code hook input: hook_event_name is missing"},
		{"no tool name", hooks.ClaudeCode, `{"hook_event_name":"PreToolUse","tool_input":{}}`, "malformed claude-code hook input: tool_name is missing"},
		{"no file path", hooks.ClaudeCode, `{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"content":"x"}}`,
			"malformed claude-code hook input: tool_input.file_path is missing or empty"},
		{"no tool input", hooks.Gemini, `{"hook_event_name":"BeforeTool","tool_name":"write_file"}`, "malformed gemini hook input: tool_input is missing"},
		{"path not a string", hooks.Cursor, `{"hook_event_name":"preToolUse","tool_name":"Write","tool_input":{"file_path":7}}`,
			"malformed cursor hook input: tool_input.file_path is not a string"},
		{"patch without files", hooks.Codex, `{"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** End Patch"}}`,
			"malformed codex hook input: tool_input.command: " + hooks.ErrNoFiles.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := hooks.Parse(tt.agent, []byte(tt.input))
			var ie *hooks.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("Parse(%q) error = %v, want an *InputError", tt.input, err)
			}
			if err.Error() != tt.want {
				t.Errorf("Parse(%q) error = %q, want %q", tt.input, err, tt.want)
			}
			if ev.Agent != tt.agent {
				t.Errorf("Parse(%q).Agent = %q, want %q", tt.input, ev.Agent, tt.agent)
			}
		})
	}
}

func TestParseIgnoresOtherTools(t *testing.T) {
	ev, err := hooks.Parse(hooks.ClaudeCode, []byte(`{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/x"}}`))
	if err != nil || ev.Kind != hooks.KindOther {
		t.Errorf("Parse(Read) = %+v, %v; want KindOther, no error", ev, err)
	}
}
