package hooks

// parseGemini reads Gemini CLI's hook input: BeforeTool for write_file
// and replace names the file in tool_input.file_path; run_shell_command
// is the shell. AfterAgent ends a turn and BeforeAgent starts one.
func parseGemini(ev *Event, in rawInput) error {
	switch in.HookEventName {
	case "BeforeTool":
		switch in.ToolName {
		case "write_file", "replace":
			return writeEvent(ev, in, "write", "file_path")
		case "run_shell_command":
			ev.Kind = KindShellBefore
		case "":
			return inputErr(ev.Agent, "tool_name is missing")
		}
	case "AfterTool":
		if in.ToolName == "run_shell_command" {
			ev.Kind = KindShellAfter
		}
	case "BeforeAgent":
		ev.Kind = KindPrompt
	case "AfterAgent":
		ev.Kind = KindTurnEnd
	case "SessionEnd":
		ev.Kind = KindSessionEnd
	}
	return nil
}
