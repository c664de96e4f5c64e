package hooks

import (
	"fmt"
	"strings"
)

// Agent is a coding-agent CLI whose hooks leasegate understands.
type Agent string

const (
	// ClaudeCode is Anthropic's Claude Code.
	ClaudeCode Agent = "claude-code"
	// Codex is OpenAI's Codex CLI.
	Codex Agent = "codex"
	// Gemini is Google's Gemini CLI.
	Gemini Agent = "gemini"
	// Cursor is the Cursor editor's agent.
	Cursor Agent = "cursor"
)

// Agents lists every supported agent.
func Agents() []Agent { return []Agent{ClaudeCode, Codex, Gemini, Cursor} }

// ParseAgent returns the agent called name.
func ParseAgent(name string) (Agent, error) {
	for _, a := range Agents() {
		if string(a) == name {
			return a, nil
		}
	}
	names := make([]string, 0, 4)
	for _, a := range Agents() {
		names = append(names, string(a))
	}
	return "", fmt.Errorf("unknown agent %q: want one of %s", name, strings.Join(names, ", "))
}

// ownerPrefix starts the owner name of a session: "cc-" + session id for
// Claude Code, which is what CLAUDE_CODE_SESSION_ID gives git hooks run by
// the agent's own commands.
var ownerPrefix = map[Agent]string{
	ClaudeCode: "cc-",
	Codex:      "codex-",
	Gemini:     "gemini-",
	Cursor:     "cursor-",
}

// sessionField names the input field that identifies a session, for
// error messages.
func sessionField(a Agent) string {
	if a == Cursor {
		return "conversation_id"
	}
	return "session_id"
}

// String returns the agent's name as the CLI spells it.
func (a Agent) String() string { return string(a) }
