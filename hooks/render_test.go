package hooks_test

import (
	"testing"

	"github.com/leasegate/leasegate/hooks"
)

func TestRender(t *testing.T) {
	halt := hooks.Decision{Verdict: hooks.Deny, Reason: "R <held>", Halt: true, StopReason: "S"}
	plain := hooks.Decision{Verdict: hooks.Deny, Reason: "R"}
	refuse := hooks.Decision{Verdict: hooks.Refuse, StopReason: "S"}
	pre := func(a hooks.Agent) hooks.Event {
		return hooks.Event{Agent: a, Name: "PreToolUse", Kind: hooks.KindWrite}
	}
	prompt := func(a hooks.Agent) hooks.Event {
		return hooks.Event{Agent: a, Name: "UserPromptSubmit", Kind: hooks.KindPrompt}
	}
	end := func(a hooks.Agent) hooks.Event { return hooks.Event{Agent: a, Name: "Stop", Kind: hooks.KindTurnEnd} }
	tests := []struct {
		name string
		ev   hooks.Event
		d    hooks.Decision
		want hooks.Output
	}{
		{"allow", pre(hooks.ClaudeCode), hooks.Decision{}, hooks.Output{}},
		{"allow with warning", pre(hooks.ClaudeCode), hooks.Decision{Warning: "W"}, hooks.Output{Stderr: "W\n"}},
		{"claude deny and halt", pre(hooks.ClaudeCode), halt, hooks.Output{
			Stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R <held>"},"continue":false,"stopReason":"S"}` + "\n",
			Stderr: "R <held>\n", Code: 2}},
		{"claude deny", pre(hooks.ClaudeCode), plain, hooks.Output{
			Stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R"}}` + "\n",
			Stderr: "R\n", Code: 2}},
		{"codex never sends continue:false from PreToolUse", pre(hooks.Codex), halt, hooks.Output{
			Stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R <held>"}}` + "\n",
			Stderr: "R <held>\n", Code: 2}},
		{"gemini deny and halt", hooks.Event{Agent: hooks.Gemini, Name: "BeforeTool", Kind: hooks.KindWrite}, halt, hooks.Output{
			Stdout: `{"decision":"deny","reason":"R <held>","continue":false,"systemMessage":"S"}` + "\n",
			Stderr: "R <held>\n", Code: 2}},
		{"cursor deny", hooks.Event{Agent: hooks.Cursor, Name: "preToolUse", Kind: hooks.KindWrite}, halt, hooks.Output{
			Stdout: `{"permission":"deny","user_message":"S","agent_message":"R <held>"}` + "\n",
			Stderr: "R <held>\n", Code: 2}},
		{"malformed input renders as PreToolUse", hooks.Event{Agent: hooks.ClaudeCode}, plain, hooks.Output{
			Stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R"}}` + "\n",
			Stderr: "R\n", Code: 2}},
		{"claude prompt refused", prompt(hooks.ClaudeCode), refuse, hooks.Output{Stdout: `{"decision":"block","reason":"S"}` + "\n", Stderr: "S\n", Code: 2}},
		{"codex prompt refused", prompt(hooks.Codex), refuse, hooks.Output{Stdout: `{"decision":"block","reason":"S"}` + "\n", Stderr: "S\n", Code: 2}},
		{"gemini prompt refused", hooks.Event{Agent: hooks.Gemini, Name: "BeforeAgent", Kind: hooks.KindPrompt}, refuse,
			hooks.Output{Stdout: `{"decision":"deny","reason":"S"}` + "\n", Stderr: "S\n", Code: 2}},
		{"cursor prompt refused", hooks.Event{Agent: hooks.Cursor, Name: "beforeSubmitPrompt", Kind: hooks.KindPrompt}, refuse,
			hooks.Output{Stdout: `{"user_message":"S","continue":false}` + "\n", Stderr: "S\n", Code: 2}},
		{"codex turn end halted with exit 0", end(hooks.Codex), refuse, hooks.Output{Stdout: `{"continue":false,"stopReason":"S"}` + "\n"}},
		{"claude turn end halted with exit 0", end(hooks.ClaudeCode), refuse, hooks.Output{Stdout: `{"continue":false,"stopReason":"S"}` + "\n"}},
		{"cursor turn end", hooks.Event{Agent: hooks.Cursor, Name: "stop", Kind: hooks.KindTurnEnd}, refuse, hooks.Output{Stderr: "S\n"}},
		{"context after a shell command", hooks.Event{Agent: hooks.ClaudeCode, Name: "PostToolUse", Kind: hooks.KindShellAfter}, hooks.Decision{Context: "C"},
			hooks.Output{Stdout: `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"C"},"systemMessage":"C"}` + "\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hooks.Render(tt.ev, tt.d); got != tt.want {
				t.Errorf("Render(%+v, %+v) =\n%+v\nwant\n%+v", tt.ev, tt.d, got, tt.want)
			}
		})
	}
}
