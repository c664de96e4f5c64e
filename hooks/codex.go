package hooks

import (
	"encoding/json"
	"strings"
)

// parseCodex reads Codex's hook input. apply_patch (also matched as Edit
// and Write) carries the raw patch in tool_input.command; every file the
// patch adds, updates, deletes or moves is one mutation. Shell commands
// arrive as Bash.
func parseCodex(ev *Event, in rawInput) error {
	switch in.HookEventName {
	case "PreToolUse":
		switch in.ToolName {
		case "apply_patch", "Edit", "Write":
			return codexPatch(ev, in)
		case "Bash", "shell", "exec_command":
			ev.Kind = KindShellBefore
		case "":
			return inputErr(ev.Agent, "tool_name is missing")
		}
	case "PostToolUse":
		if in.ToolName == "Bash" || in.ToolName == "shell" || in.ToolName == "exec_command" {
			ev.Kind = KindShellAfter
		}
	case "UserPromptSubmit":
		ev.Kind = KindPrompt
	case "Stop":
		ev.Kind = KindTurnEnd
	case "SessionEnd":
		ev.Kind = KindSessionEnd
	}
	return nil
}

// codexPatch makes ev the mutation of every file of the patch in
// tool_input.command (a string, or an argv whose element holds the patch).
func codexPatch(ev *Event, in rawInput) error {
	text, err := patchText(ev.Agent, in.ToolInput)
	if err != nil {
		return err
	}
	files, err := ParsePatch(text)
	if err != nil {
		return inputErr(ev.Agent, "tool_input.command: %v", err)
	}
	ev.Kind, ev.Op, ev.Paths = KindWrite, "apply_patch", PatchPaths(files)
	return nil
}

func patchText(a Agent, obj json.RawMessage) (string, error) {
	var m map[string]json.RawMessage
	if len(obj) == 0 || json.Unmarshal(obj, &m) != nil {
		return "", inputErr(a, "tool_input is missing or not a JSON object")
	}
	for _, k := range []string{"command", "input", "patch"} {
		raw, ok := m[k]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s, nil
		}
		var argv []string
		if json.Unmarshal(raw, &argv) == nil {
			return patchArg(argv), nil
		}
		return "", inputErr(a, "tool_input.%s is neither a string nor a list of strings", k)
	}
	return "", inputErr(a, "tool_input.command is missing")
}

// patchArg picks the patch out of an argv such as ["apply_patch", PATCH].
func patchArg(argv []string) string {
	for _, s := range argv {
		if strings.Contains(s, patchBegin) {
			return s
		}
	}
	return strings.Join(argv, "\n")
}
