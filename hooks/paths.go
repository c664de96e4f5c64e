package hooks

import (
	"os"
	"path/filepath"

	"github.com/leasegate/leasegate/workspace"
)

// targets are the files of a write, sorted out by the workspace's rule.
type targets struct {
	gated    []string // workspace-relative, each once
	stateDir string   // a path inside leasegate's state directory, if any
}

// classify resolves each path of ev (relative ones against ev.Cwd,
// symlinks and ".." followed, so a link is the file it names) and keeps
// those rule gates.
func classify(ws *workspace.Workspace, rule *gateRule, ev Event) targets {
	var t targets
	seen := map[string]bool{}
	for _, p := range ev.Paths {
		abs := workspace.ResolveExisting(absPath(ev.Cwd, p))
		if ws.InStateDir(abs) {
			t.stateDir = p
			continue
		}
		rel, inside := ws.Rel(abs)
		if !inside || rel == "." || seen[rel] {
			continue
		}
		seen[rel] = true
		switch rule.Classify(rel) {
		case workspace.Gated:
			t.gated = append(t.gated, rel)
		case workspace.StateDir:
			t.stateDir = p
		}
	}
	return t
}

// absPath makes p absolute against cwd (the current directory when cwd is
// empty) and cleans it.
func absPath(cwd, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	return filepath.Join(cwd, p)
}
