package hooks

import (
	"encoding/json"
	"fmt"
)

// Kind is what a hook event asks of leasegate.
type Kind int

const (
	// KindOther needs nothing: the hook allows it silently. Tools that
	// write no file (Read, Grep, ...) and events leasegate does not use
	// are KindOther, so a matcher wider than install's denies nothing.
	KindOther Kind = iota
	// KindWrite is a tool call about to write files: gate them.
	KindWrite
	// KindShellBefore is a shell command about to run: snapshot the tree.
	KindShellBefore
	// KindShellAfter is a shell command that ran: report what it changed
	// in files other owners hold.
	KindShellAfter
	// KindPrompt is a new prompt: activity, refused while a blocker of the
	// session is open.
	KindPrompt
	// KindTurnEnd is the end of the agent's turn: open the stop-idle
	// window.
	KindTurnEnd
	// KindSubagentStop is a subagent ending inside a turn that goes on:
	// activity.
	KindSubagentStop
	// KindSessionEnd is the end of the session: release its leases.
	KindSessionEnd
)

// Event is one hook call, parsed.
type Event struct {
	Agent Agent
	// Name is the hook event name as the agent sent it.
	Name string
	Kind Kind
	// Session identifies the agent session (Cursor: the conversation).
	Session string
	// Cwd is the agent's working directory; relative paths start there.
	Cwd       string
	Tool      string
	ToolUseID string
	// Transcript is the session's transcript file (transcript_path), which
	// the agent process may hold open: a way to find it.
	Transcript string
	// Op names the mutation of a KindWrite event: write, unlink,
	// apply_patch.
	Op string
	// Paths are the files a KindWrite event writes, as sent: absolute, or
	// relative to Cwd.
	Paths []string
	// Command is the shell command a KindShellBefore event of Gemini CLI
	// is about to run, as its model wrote it; "" for other agents.
	Command string
}

// MaxInput bounds the hook input read from stdin (a patch can be large).
const MaxInput = 32 << 20

// InputError is hook input that leasegate cannot use; the call is denied.
type InputError struct {
	Agent Agent
	What  string
}

func (e *InputError) Error() string {
	return fmt.Sprintf("malformed %s hook input: %s", e.Agent, e.What)
}

func inputErr(a Agent, format string, args ...any) *InputError {
	return &InputError{Agent: a, What: fmt.Sprintf(format, args...)}
}

// rawInput holds the fields of every agent's hook input that leasegate
// reads.
type rawInput struct {
	SessionID      string          `json:"session_id"`
	ConversationID string          `json:"conversation_id"`
	Cwd            string          `json:"cwd"`
	WorkspaceRoots []string        `json:"workspace_roots"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolUseID      string          `json:"tool_use_id"`
	TranscriptPath string          `json:"transcript_path"`
	ToolInput      json.RawMessage `json:"tool_input"`
}

// Parse reads one hook call of agent a. The Event it returns carries the
// agent and, as far as it could be read, the event name even when the
// error is not nil, so the denial can be rendered for that event. Errors
// are *InputError.
func Parse(a Agent, data []byte) (Event, error) {
	ev := Event{Agent: a}
	in, err := decodeInput(a, data)
	if err != nil {
		return ev, err
	}
	ev = Event{Agent: a, Name: in.HookEventName, Session: in.SessionID, Cwd: in.Cwd,
		Tool: in.ToolName, ToolUseID: in.ToolUseID, Transcript: in.TranscriptPath}
	switch a {
	case ClaudeCode:
		err = parseClaude(&ev, in)
	case Codex:
		err = parseCodex(&ev, in)
	case Gemini:
		err = parseGemini(&ev, in)
	case Cursor:
		err = parseCursor(&ev, in)
	default:
		err = inputErr(a, "unknown agent")
	}
	return ev, err
}

func decodeInput(a Agent, data []byte) (rawInput, error) {
	var in rawInput
	if len(data) == 0 {
		return in, inputErr(a, "stdin is empty, want the hook's JSON object")
	}
	if len(data) > MaxInput {
		return in, inputErr(a, "stdin is over %d bytes", MaxInput)
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return in, inputErr(a, "stdin is not a JSON object: %v", err)
	}
	if in.HookEventName == "" {
		return in, inputErr(a, "hook_event_name is missing")
	}
	return in, nil
}

// stringField returns the first non-empty string among keys of the JSON
// object obj. A key holding something other than a string is an error.
func stringField(a Agent, obj json.RawMessage, keys ...string) (string, error) {
	if len(obj) == 0 {
		return "", inputErr(a, "tool_input is missing")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		return "", inputErr(a, "tool_input is not a JSON object")
	}
	for _, k := range keys {
		raw, ok := m[k]
		if !ok || string(raw) == "null" {
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", inputErr(a, "tool_input.%s is not a string", k)
		}
		if s != "" {
			return s, nil
		}
	}
	return "", inputErr(a, "tool_input.%s is missing or empty", keys[0])
}

// writeEvent makes ev a KindWrite of the one file named by keys.
func writeEvent(ev *Event, in rawInput, op string, keys ...string) error {
	p, err := stringField(ev.Agent, in.ToolInput, keys...)
	if err != nil {
		return err
	}
	ev.Kind, ev.Op, ev.Paths = KindWrite, op, []string{p}
	return nil
}
