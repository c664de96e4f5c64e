package hooks

// parseClaude reads Claude Code's hook input: Write, Edit and MultiEdit
// name the file in tool_input.file_path, NotebookEdit in
// tool_input.notebook_path; Bash carries only the command.
func parseClaude(ev *Event, in rawInput) error {
	switch in.HookEventName {
	case "PreToolUse":
		switch in.ToolName {
		case "Write", "Edit", "MultiEdit":
			return writeEvent(ev, in, "write", "file_path")
		case "NotebookEdit":
			return writeEvent(ev, in, "write", "notebook_path")
		case "Bash":
			ev.Kind = KindShellBefore
		case "":
			return inputErr(ev.Agent, "tool_name is missing")
		}
	case "PostToolUse":
		if in.ToolName == "Bash" {
			ev.Kind = KindShellAfter
		}
	case "UserPromptSubmit":
		ev.Kind = KindPrompt
	case "Stop":
		ev.Kind = KindTurnEnd
	case "SubagentStop":
		ev.Kind = KindSubagentStop
	case "SessionEnd":
		ev.Kind = KindSessionEnd
	}
	return nil
}
