package workspace

import (
	"path"
	"strings"
)

// gitRuleFiles are the files in a git dir that change what leasegate
// gates (info/exclude), or what git runs (config, attributes, hooks).
var gitRuleFiles = []string{"/info/exclude", "/info/attributes", "/config", "/config.worktree"}

// RuleFile reports whether a write of abs changes the gating rule or what
// git runs: leasegate.json, a .gitignore, and in the git dirs info/exclude,
// info/attributes, config, config.worktree, hooks/ and what is under it,
// and info/ itself. name
// is how the ledger records it: workspace-relative, or ".git/..." for the
// git dirs wherever they lie. Like AffectsIgnore, it compares strings only:
// abs must be clean and absolute with its directories' symlinks resolved.
func (w *Workspace) RuleFile(abs string) (name string, ok bool) {
	if rel, in := Under(w.Root, abs); in && (native().same(rel, ConfigFile) || native().same(path.Base(rel), ".gitignore")) {
		return rel, true
	}
	for _, dir := range []string{w.GitDir, w.CommonDir} {
		if dir == "" {
			continue
		}
		rel, in := Under(dir, abs)
		if !in {
			continue
		}
		if top, _, _ := strings.Cut(rel, "/"); native().same(rel, "info") || native().same(top, "hooks") {
			return ".git/" + rel, true
		}
		for _, f := range gitRuleFiles {
			if native().same(rel, f[1:]) {
				return ".git/" + rel, true
			}
		}
	}
	return "", false
}
