package hooks

import (
	"os"

	"github.com/leasegate/leasegate/workspace"
)

// DiscoverWorkspace exposes discoverWorkspace to the tests.
var DiscoverWorkspace = discoverWorkspace

// ClassifyFast classifies rel as a hook does, and reports whether git's
// ignore rules had to be consulted.
func ClassifyFast(ws *workspace.Workspace, rel string) (c workspace.Class, askedGit bool, err error) {
	g, err := newGateRule(ws)
	if err != nil {
		return 0, false, err
	}
	defer g.Close()
	c = g.local.Classify(rel)
	askedGit = c == workspace.Gated && g.askGit && (g.ignore == nil || g.ignore.mayBeIgnored(rel))
	return g.Classify(rel), askedGit, nil
}

// LiteralRuns exposes literalRuns to the tests.
var LiteralRuns = literalRuns

// AgentStartTime returns the agent start time a hook of owner's session
// in ws registers.
func AgentStartTime(ws *workspace.Workspace, owner string) int64 {
	return agentOwner(newSession(ws, owner), owner).StartTime
}

// SetCachedAgentStart overwrites the cached start time of the agent of
// owner's session in ws.
func SetCachedAgentStart(ws *workspace.Workspace, owner string, start int64) error {
	s := newSession(ws, owner)
	p, _ := s.agent()
	p.StartTime = start
	return s.saveAgent(p)
}

// AgentPID is the agent process a hook run by this process acts for.
func AgentPID() int { return agentPID(os.Getppid()) }
