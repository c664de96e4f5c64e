package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// joinSuperproject returns the workspace of the outermost superproject
// when w is a submodule's checkout, with Submodule set to w's root, and w
// otherwise. The superproject's rule gates the submodule's files too, so
// a coordinator of the submodule's own would be a second owner of them,
// knowing nothing of the superproject's leases.
func joinSuperproject(w *Workspace) (*Workspace, error) {
	sup, ok := w.Superproject()
	if !ok {
		return w, nil
	}
	s, err := findCheckout(sup)
	if err != nil {
		return nil, fmt.Errorf("find workspace: %s is a submodule of %s: %w", w.Root, sup, err)
	}
	if s.Root != sup {
		return nil, fmt.Errorf("find workspace: %s is a submodule of %s, but git finds the checkout %s there", w.Root, sup, s.Root)
	}
	s.Submodule = w.Root
	return s, nil
}

// Superproject returns the root of the checkout w is a submodule of (the
// outermost one, for a submodule of a submodule): w's git dir lies under
// an enclosing checkout's <git dir>/modules/, where `git submodule` keeps
// it. A clone nested in the tree that is no submodule is not one: its
// git dir is its own, and joining every repository found above a
// directory would make a home directory kept under git swallow every
// project below it.
func (w *Workspace) Superproject() (string, bool) {
	if w.GitDir == "" || !strings.Contains(w.GitDir, string(filepath.Separator)+"modules"+string(filepath.Separator)) {
		return "", false
	}
	for d := filepath.Dir(w.Root); d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err != nil {
			continue
		}
		sup, ok := enclosing(d)
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

// enclosing returns the checkout at d, found as Find finds one: without
// git where discover is sure, else by asking git.
func enclosing(d string) (*Workspace, bool) {
	if sup, ok := discover(d); ok {
		return sup, true
	}
	sup, err := discoverGit(d)
	return sup, err == nil
}
