package hooks

import (
	"fmt"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

// targets are the files of a write, sorted out by the workspace's rule.
type targets struct {
	gated   []string // workspace-relative, each once
	refused string   // a path agents may never write (as the tool named it), if any
	class   workspace.Class
	// unnamed says why refused, a path inside the workspace, is no name
	// the gate can lease (over gate.MaxPathLen, a NUL byte).
	unnamed error
}

// classify resolves each path of ev (relative ones against ev.Cwd,
// symlinks and ".." followed, so a link is the file it names) and keeps
// those the rule gates. A path in the state directory or the operator's
// leasegate.json is refused, as the sidecar refuses it.
func classify(rule *gateRule, ev Event) targets {
	var t targets
	seen := map[string]bool{}
	for _, p := range ev.Paths {
		abs := workspace.ResolvePath(ev.Cwd, p)
		v := rule.ClassifyPath(abs)
		if v.Class == workspace.Outside && v.Rel == "" {
			// A bind mount shows the workspace's files at another path.
			if in, through := rule.dealias(abs); through {
				v = rule.ClassifyPath(in)
			}
		}
		switch {
		case v.Refused():
			t.refused, t.class = p, v.Class
		case v.Class == workspace.Outside && v.Rel != "":
			// Inside the root but no path the gate can lease: refused
			// (fail closed), not let through as if it lay outside.
			_, t.unnamed = gate.CleanPath(v.Rel)
			t.refused, t.class = p, v.Class
		case v.Class == workspace.Gated && !seen[v.Rel]:
			seen[v.Rel] = true
			t.gated = append(t.gated, v.Rel)
		}
	}
	return t
}

// refusal is the reason a write of t.refused is denied.
func (t targets) refusal(ws *workspace.Workspace) string {
	shown := gate.ShownPath(t.refused)
	switch {
	case t.unnamed != nil:
		return fmt.Sprintf("leasegate: %s lies in the workspace %s but is no path a lease can name (%v), so the write is refused", shown, ws.Root, t.unnamed)
	case t.class == workspace.Operator:
		return fmt.Sprintf("leasegate: %s is the operator's gating rule (%s), which agents may not change", shown, workspace.ConfigFile)
	}
	return fmt.Sprintf("leasegate: %s is inside leasegate's state directory %s, which agents may never write", shown, ws.StateDir)
}
