package hooks

import (
	"fmt"

	"github.com/leasegate/leasegate/workspace"
)

// targets are the files of a write, sorted out by the workspace's rule.
type targets struct {
	gated   []string // workspace-relative, each once
	refused string   // a path agents may never write (as the tool named it), if any
	class   workspace.Class
}

// classify resolves each path of ev (relative ones against ev.Cwd,
// symlinks and ".." followed, so a link is the file it names) and keeps
// those the rule gates. A path in the state directory or the operator's
// leasegate.json is refused, as the sidecar refuses it.
func classify(rule *gateRule, ev Event) targets {
	var t targets
	seen := map[string]bool{}
	for _, p := range ev.Paths {
		v := rule.ClassifyPath(workspace.ResolvePath(ev.Cwd, p))
		switch {
		case v.Refused():
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
	if t.class == workspace.Operator {
		return fmt.Sprintf("leasegate: %s is the operator's gating rule (%s), which agents may not change", t.refused, workspace.ConfigFile)
	}
	return fmt.Sprintf("leasegate: %s is inside leasegate's state directory %s, which agents may never write", t.refused, ws.StateDir)
}
