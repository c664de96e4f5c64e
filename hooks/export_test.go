package hooks

import (
	"os"

	"github.com/leasegate/leasegate/workspace"
)

// ClassifyFast classifies rel as a hook does, and reports whether git's
// ignore rules had to be consulted.
func ClassifyFast(ws *workspace.Workspace, rel string) (c workspace.Class, askedGit bool, err error) {
	g, err := newGateRule(ws)
	if err != nil {
		return 0, false, err
	}
	defer g.Close()
	return g.Classify(rel), g.needsGit(g.local.Classify(rel), rel), nil
}

// Conflicts is the pre-commit guard's check of the staged files against
// the leases, with the workspace's folding given.
var Conflicts = conflicts

// LiteralRuns exposes literalRuns to the tests.
var LiteralRuns = literalRuns

// AgentStartTime returns the agent start time a hook of owner's session
// in ws registers, and remembers the registration as a hook does.
func AgentStartTime(ws *workspace.Workspace, owner string) int64 {
	s := newSession(ws, owner)
	last, _ := s.registration()
	r := agentOwner(ClaudeCode, "", last, owner)
	_ = s.saveRegistration(r)
	return r.Owner.StartTime
}

// SetCachedAgentStart overwrites the agent start time remembered by
// owner's session in ws.
func SetCachedAgentStart(ws *workspace.Workspace, owner string, start int64) error {
	s := newSession(ws, owner)
	r, _ := s.registration()
	r.Agent.StartTime = start
	return s.saveRegistration(r)
}

// AgentPID is the agent process a Claude Code hook run by this process
// acts for, 0 when none is found.
func AgentPID() int {
	p, _ := findAgent(ClaudeCode, os.Getppid(), "")
	return p.PID
}

// ProcComm is the command name of process pid.
func ProcComm(pid int) string {
	st, _ := procStat(pid)
	return st.comm
}

// GatingCommand is the line install writes for an agent's gating hooks.
var GatingCommand = gatingCommand

// HookCommand is the line install writes for an agent's other hooks, and
// an older install for every hook.
var HookCommand = hookCommand

// HooksOnLine exposes hooksOnLine to the tests.
var HooksOnLine = hooksOnLine

// HooksOnGit exposes hooksOnGit to the tests.
var HooksOnGit = hooksOnGit
