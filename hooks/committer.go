package hooks

import (
	"context"
	"fmt"
)

// committerOf names who commits, by the rule the coordinator applies to
// every request: the registered owner whose root process (a hook
// session's agent, a run worker's sidecar) is the nearest of the hook's
// ancestors. A git hook run by an agent's own `git commit` thus knows the
// session whatever the agent (Codex, Gemini CLI and Cursor set no
// variable naming it). The coordinator is asked rather than /proc walked
// here: it knows the hook by the socket's peer as the kernel gives it in
// the coordinator's own pid namespace, and Codex runs its shell commands
// in a pid namespace of their own (bubblewrap), inside which the agent is
// no ancestor of the hook at all. Without such an owner it is claimed:
// the name LEASEGATE_AS or CLAUDE_CODE_SESSION_ID gave, or nobody.
func committerOf(ctx context.Context, cl Coordinator, claimed string) (string, error) {
	v, err := cl.Whoami(ctx)
	if err != nil {
		return "", fmt.Errorf("who commits: %w", err)
	}
	if len(v.Owners) == 0 {
		return claimed, nil
	}
	return v.Owners[0], nil
}
