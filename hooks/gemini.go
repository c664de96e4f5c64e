package hooks

// parseGemini reads Gemini CLI's hook input: BeforeTool for write_file
// and replace names the file in tool_input.file_path; run_shell_command
// is the shell, its command in tool_input.command. AfterAgent ends a turn
// and BeforeAgent starts one.
func parseGemini(ev *Event, in rawInput) error {
	switch in.HookEventName {
	case "BeforeTool":
		switch in.ToolName {
		case "write_file", "replace":
			return writeEvent(ev, in, "write", "file_path")
		case "run_shell_command":
			// A command that cannot be read is run as it is: only the
			// rewrite that turns git's hooks on for it needs it.
			ev.Kind = KindShellBefore
			ev.Command, _ = stringField(ev.Agent, in.ToolInput, "command")
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
