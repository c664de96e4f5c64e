package hooks

import "github.com/leasegate/leasegate/workspace"

// gateRule is the workspace's rule that asks git only about the paths an
// ignore pattern may match (see ignorePatterns): the rest it tells from
// the rule's own steps (state dir, .git, exclude and include globs) and
// the ignore files. Its verdicts are the rule's.
type gateRule struct {
	local  *workspace.Rule // the rule without git's ignore rules: never starts git
	full   *workspace.Rule // the whole rule; starts git on its first question
	ignore *ignorePatterns // nil: every path the local rule gates goes to git
	askGit bool            // the workspace consults git's ignore rules
}

func newGateRule(ws *workspace.Workspace) (*gateRule, error) {
	full, err := workspace.NewRule(ws, nil)
	if err != nil {
		return nil, err
	}
	noGit := *ws
	noGit.Config.GateGitIgnored = true
	local, err := workspace.NewRule(&noGit, nil)
	if err != nil {
		return nil, err
	}
	g := &gateRule{local: local, full: full, askGit: ws.GitDir != "" && !ws.Config.GateGitIgnored}
	if g.askGit {
		g.ignore, _ = loadIgnorePatterns(ws)
	}
	return g, nil
}

// Classify returns the rule's class of rel, as workspace.Rule.Classify.
func (g *gateRule) Classify(rel string) workspace.Class {
	c := g.local.Classify(rel)
	if c != workspace.Gated || !g.askGit || (g.ignore != nil && !g.ignore.mayBeIgnored(rel)) {
		return c
	}
	return g.full.Classify(rel)
}

// Close ends git if a question started it.
func (g *gateRule) Close() {
	_ = g.full.Close()
	_ = g.local.Close()
}
