package hooks

// Verdict is a hook's answer.
type Verdict int

const (
	// Allow lets the call proceed; the hook exits 0.
	Allow Verdict = iota
	// Deny refuses a tool call.
	Deny
	// Refuse stops a session that has an open blocker from going on: a
	// prompt is blocked, a turn end halts the agent.
	Refuse
)

// Decision is what the hook answers, before it is rendered for an agent.
type Decision struct {
	Verdict Verdict
	// Reason explains a denial to the model (Deny), or a refusal to the
	// user (Refuse). It says what to do next.
	Reason string
	// Halt asks the agent to stop altogether (continue:false) where the
	// agent honours that; StopReason is shown to the operator then.
	Halt       bool
	StopReason string
	// Context is told to the model after an allowed call (ungated writes
	// that a shell command made in other owners' files).
	Context string
	// Warning is a problem that does not change the verdict; it goes to
	// stderr.
	Warning string
	// Command, when set, is the shell command the agent runs in place of
	// the one its model wrote (Gemini CLI's BeforeTool tool_input).
	Command string
}

func deny(reason string) Decision { return Decision{Verdict: Deny, Reason: reason} }

func halt(reason, stop string) Decision {
	return Decision{Verdict: Deny, Reason: reason, Halt: true, StopReason: stop}
}

func warn(msg string) Decision { return Decision{Warning: msg} }

// Malformed is the denial of hook input that could not be parsed: the call
// is refused (fail closed) and the reason names what is wrong.
func Malformed(err error) Decision {
	return deny("leasegate: " + err.Error() + "; the tool call is refused because leasegate cannot tell what it writes")
}

// Misconfigured is the answer to call ev when the hook cannot run as its
// flags or environment ask, err saying why. Every call is refused until
// that is mended, so the session halts at once with the cause for the
// user: a tool call is denied, a prompt or turn end refused, each naming
// err (a turn end's refusal halts with exit 0, see refuse).
func Misconfigured(ev Event, err error) Decision {
	stop := "leasegate: " + err.Error() + "; every hook call is refused until it is mended " +
		"(the hook's command line, or the environment the agent runs its hooks in)"
	switch ev.Kind {
	case KindPrompt, KindTurnEnd, KindShellAfter, KindSubagentStop, KindSessionEnd:
		return Decision{Verdict: Refuse, StopReason: stop}
	}
	return halt(stop+"; the tool call is refused. Do not make it by other means; tell the user.", stop)
}
