package workspace

import (
	"os"
	"path/filepath"
	"strings"
)

// Superproject returns the root of the checkout w is a submodule of (the
// outermost one, for a submodule of a submodule), found as discovery
// finds a checkout, without asking git: w's git dir lies under an
// enclosing checkout's <git dir>/modules/, where `git submodule` keeps it.
// The superproject's own rule gates w's files too, so a coordinator there
// and one here would each grant them; status says so. A clone nested in
// the tree that is no submodule, or a layout discovery leaves to git, is
// not reported.
func (w *Workspace) Superproject() (string, bool) {
	if w.GitDir == "" || !strings.Contains(w.GitDir, string(filepath.Separator)+"modules"+string(filepath.Separator)) {
		return "", false
	}
	for d := filepath.Dir(w.Root); d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err != nil {
			continue
		}
		sup, ok := discover(d)
		if !ok || !strings.HasPrefix(w.GitDir, filepath.Join(sup.GitDir, "modules")+string(filepath.Separator)) {
			return "", false
		}
		if outer, ok := sup.Superproject(); ok {
			return outer, true
		}
		return sup.Root, true
	}
	return "", false
}
