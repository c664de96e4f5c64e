package hooks

// parseCursor reads Cursor's hook input: the session is the
// conversation_id, the working directory the first of workspace_roots, and
// the file of a preToolUse is in tool_input.file_path or tool_input.path.
func parseCursor(ev *Event, in rawInput) error {
	ev.Session = in.ConversationID
	if ev.Session == "" {
		ev.Session = in.SessionID
	}
	if ev.Cwd == "" && len(in.WorkspaceRoots) > 0 {
		ev.Cwd = in.WorkspaceRoots[0]
	}
	switch in.HookEventName {
	case "preToolUse":
		switch in.ToolName {
		case "Write", "StrReplace", "Edit", "MultiEdit", "EditNotebook":
			return writeEvent(ev, in, "write", "file_path", "path")
		case "Delete":
			return writeEvent(ev, in, "unlink", "file_path", "path")
		case "Shell":
			ev.Kind = KindShellBefore
		case "":
			return inputErr(ev.Agent, "tool_name is missing")
		}
	case "postToolUse":
		if in.ToolName == "Shell" {
			ev.Kind = KindShellAfter
		}
	case "beforeSubmitPrompt":
		ev.Kind = KindPrompt
	case "stop":
		ev.Kind = KindTurnEnd
	case "sessionEnd":
		ev.Kind = KindSessionEnd
	}
	return nil
}
