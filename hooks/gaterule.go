package hooks

import (
	"sync"

	"github.com/leasegate/leasegate/workspace"
)

// gateRule is the workspace's rule that asks git only about the paths an
// ignore pattern may match (see ignorePatterns): the rest it tells from
// the rule's own steps (state dir, .git, exclude and include globs) and
// the ignore files. Its verdicts are the rule's.
type gateRule struct {
	local  *workspace.Rule // the rule without git's ignore rules: never starts git
	full   *workspace.Rule // the whole rule; starts git on its first question
	ignore *ignorePatterns // nil: every path the local rule gates goes to git
	askGit bool            // the workspace consults git's ignore rules

	ws        *workspace.Workspace
	aliasOnce sync.Once
	aliases   []workspace.Alias // the workspace's bind mounts, read on the first path outside the root
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
	g := &gateRule{local: local, full: full, askGit: ws.GitDir != "" && !ws.Config.GateGitIgnored, ws: ws}
	if g.askGit {
		g.ignore, _ = loadIgnorePatterns(ws)
	}
	return g, nil
}

// Classify returns the rule's class of rel, as workspace.Rule.Classify.
func (g *gateRule) Classify(rel string) workspace.Class {
	if c := g.local.Classify(rel); !g.needsGit(c, rel) {
		return c
	}
	return g.full.Classify(rel)
}

// ClassifyPath returns the rule's verdict on abs, as
// workspace.Rule.ClassifyPath for a mutation of one file.
func (g *gateRule) ClassifyPath(abs string) workspace.Verdict {
	if v := g.local.ClassifyPath(abs, workspace.ReachFile); !g.needsGit(v.Class, v.Rel) {
		return v
	}
	return g.full.ClassifyPath(abs, workspace.ReachFile)
}

// dealias returns the workspace path that abs names through a bind mount
// of the workspace's directories (workspace.Alias), or abs and false. The
// mount table is read once, on the first path outside the root; one that
// cannot be read is taken for a table without such mounts.
func (g *gateRule) dealias(abs string) (string, bool) {
	g.aliasOnce.Do(func() { g.aliases, _ = g.ws.Aliases() })
	return workspace.Dealias(g.aliases, abs)
}

// needsGit reports whether the local rule's class c of rel may change
// with git's ignore rules: rel is gated and an ignore pattern may match it.
func (g *gateRule) needsGit(c workspace.Class, rel string) bool {
	return c == workspace.Gated && g.askGit && (g.ignore == nil || g.ignore.mayBeIgnored(rel))
}

// Close ends git if a question started it.
func (g *gateRule) Close() {
	_ = g.full.Close()
	_ = g.local.Close()
}
