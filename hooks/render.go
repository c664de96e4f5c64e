package hooks

import (
	"bytes"
	"encoding/json"
)

// Output is a rendered decision: what the hook process prints and its exit
// status.
type Output struct {
	Stdout string
	Stderr string
	Code   int
}

// ExitBlock is the exit status that blocks in every agent.
const ExitBlock = 2

// Render turns d into what ev's agent understands. A denial is the one
// recipe that blocks in all four agents: the agent's JSON deny on stdout,
// the reason also on stderr, exit 2.
func Render(ev Event, d Decision) Output {
	var out Output
	switch d.Verdict {
	case Deny:
		out = Output{Stdout: jsonLine(denyJSON(ev, d)), Stderr: d.Reason + "\n", Code: ExitBlock}
	case Refuse:
		out = refuse(ev, d)
	default:
		switch {
		case d.Command != "" && ev.Agent == Gemini:
			out.Stdout = jsonLine(hookOutput{Specific: &specificOutput{HookEventName: ev.Name, ToolInput: &toolInput{Command: d.Command}}})
		case d.Context != "" && ev.Agent != Cursor:
			out.Stdout = jsonLine(contextJSON(ev, d))
		}
	}
	if d.Warning != "" {
		out.Stderr += d.Warning + "\n"
	}
	return out
}

// hookOutput is the JSON shape Claude Code and Codex read; Gemini reads its
// own decision fields and Cursor its permission fields.
type hookOutput struct {
	Specific   *specificOutput `json:"hookSpecificOutput,omitempty"`
	Decision   string          `json:"decision,omitempty"`
	Reason     string          `json:"reason,omitempty"`
	Permission string          `json:"permission,omitempty"`
	UserMsg    string          `json:"user_message,omitempty"`
	AgentMsg   string          `json:"agent_message,omitempty"`
	Continue   *bool           `json:"continue,omitempty"`
	StopReason string          `json:"stopReason,omitempty"`
	SystemMsg  string          `json:"systemMessage,omitempty"`
}

type specificOutput struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
	// ToolInput replaces fields of the tool call's input (Gemini CLI's
	// BeforeTool).
	ToolInput *toolInput `json:"tool_input,omitempty"`
}

// toolInput is the part of a shell tool's input a hook replaces.
type toolInput struct {
	Command string `json:"command"`
}

// continueFalse is continue:false in the JSON.
var continueFalse = new(bool)

func denyJSON(ev Event, d Decision) hookOutput {
	var o hookOutput
	switch ev.Agent {
	case Gemini:
		o.Decision, o.Reason = "deny", d.Reason
	case Cursor:
		o.Permission, o.UserMsg, o.AgentMsg = "deny", firstOf(d.StopReason, d.Reason), d.Reason
		return o
	default:
		o.Specific = &specificOutput{HookEventName: "PreToolUse", PermissionDecision: "deny", PermissionDecisionReason: d.Reason}
	}
	switch {
	case !d.Halt:
	case ev.Agent == Codex:
		// Codex fails open on continue:false in PreToolUse: its hard stop
		// is the refusal of the next prompt and turn end instead.
	case ev.Agent == Gemini:
		// Gemini CLI hands the model stopReason in place of reason when it
		// stops the loop, so the operator's words go to the user as a
		// system message and the model keeps the reason written for it.
		o.Continue, o.SystemMsg = continueFalse, d.StopReason
	default:
		o.Continue, o.StopReason = continueFalse, d.StopReason
	}
	return o
}

// refuse renders a refusal. A prompt is blocked with exit 2; a turn end is
// halted with continue:false and exit 0, because exit 2 on a Stop hook
// makes Claude Code and Codex go on working.
func refuse(ev Event, d Decision) Output {
	msg := firstOf(d.StopReason, d.Reason)
	if ev.Kind == KindTurnEnd {
		if ev.Agent == Cursor {
			return Output{Stderr: msg + "\n"}
		}
		return Output{Stdout: jsonLine(hookOutput{Continue: continueFalse, StopReason: msg})}
	}
	var o hookOutput
	switch ev.Agent {
	case Gemini:
		o.Decision, o.Reason = "deny", msg
	case Cursor:
		o.Continue, o.UserMsg = continueFalse, msg
	default:
		o.Decision, o.Reason = "block", msg
	}
	return Output{Stdout: jsonLine(o), Stderr: msg + "\n", Code: ExitBlock}
}

// contextJSON tells the model (and, as a system message, the user) what a
// shell command did to other owners' files.
func contextJSON(ev Event, d Decision) hookOutput {
	return hookOutput{SystemMsg: d.Context, Specific: &specificOutput{HookEventName: ev.Name, AdditionalContext: d.Context}}
}

func jsonLine(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return `{"decision":"deny"}` + "\n"
	}
	return b.String()
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
