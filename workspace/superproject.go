package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// joinSuperproject returns the workspace of the outermost superproject
// when w is a submodule's checkout, or of the checkout whose tree holds w
// when w is a linked worktree made inside it (see enclosingCheckout), with
// Submodule set to w's root and Nested saying which; w otherwise. The
// outer rule gates the nested checkout's files too, so a coordinator of
// the nested checkout's own would be a second owner of them, knowing
// nothing of the outer one's leases.
func joinSuperproject(w *Workspace) (*Workspace, error) {
	nested := NestedSubmodule
	sup, err := w.superproject()
	if sup == nil && err == nil {
		nested = NestedWorktree
		sup, err = w.enclosingCheckout()
	}
	if sup == nil || err != nil {
		return w, err
	}
	sup.Submodule, sup.Nested = w.Root, nested
	return sup, nil
}

// enclosingCheckout returns the workspace of the checkout whose tree
// holds w when w is a linked worktree of the same repository (`git
// worktree add wt` run in the checkout) that the checkout does not
// ignore: its rule gates w's files, as an untracked directory's, so a
// worker started inside w must be gated by the same coordinator (or one
// the checkout joins in turn). A worktree the checkout ignores
// (.worktrees/ in .gitignore) is not gated there, and stays a workspace of
// its own, as does a clone of another repository nested in a tree.
func (w *Workspace) enclosingCheckout() (*Workspace, error) {
	if w.GitDir == "" || w.GitDir == w.CommonDir {
		return nil, nil
	}
	for d := filepath.Dir(w.Root); d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err != nil {
			continue
		}
		outer, err := enclosing(d)
		if outer == nil || err != nil || outer.CommonDir != w.CommonDir || ignores(outer.Root, w.Root) {
			return nil, err
		}
		return joinSuperproject(outer)
	}
	return nil, nil
}

// ignores reports whether git ignores the directory dir in the checkout
// at root; a question git cannot answer counts as not ignored.
func ignores(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return false
	}
	_, err = runGit(root, gitEnv(), "check-ignore", "-q", "--", filepath.ToSlash(rel)+"/")
	return err == nil
}

// superproject returns the checkout w is a submodule of (the outermost
// one, for a submodule of a submodule), or nil: w's git dir lies under an
// enclosing checkout's <git dir>/modules/, where `git submodule` keeps
// it. A clone nested in the tree that is no submodule is not one: its git
// dir is its own, and joining every repository found above a directory
// would make a home directory kept under git swallow every project below
// it.
func (w *Workspace) superproject() (*Workspace, error) {
	if w.GitDir == "" || !strings.Contains(w.GitDir, string(filepath.Separator)+"modules"+string(filepath.Separator)) {
		return nil, nil
	}
	for d := filepath.Dir(w.Root); d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err != nil {
			continue
		}
		sup, err := enclosing(d)
		if sup == nil || err != nil || !strings.HasPrefix(w.GitDir, filepath.Join(sup.GitDir, "modules")+string(filepath.Separator)) {
			return nil, err
		}
		if outer, err := sup.superproject(); outer != nil || err != nil {
			return outer, err
		}
		return sup, nil
	}
	return nil, nil
}

// enclosing returns the checkout at d with its configuration, found as
// Find finds one: without git where discover is sure, else by asking git
// (nil when git finds none). A leasegate.json there that does not load is
// an error, as it is for a command started there.
func enclosing(d string) (*Workspace, error) {
	if sup, ok := discover(d); ok {
		return sup, nil
	}
	sup, err := discoverGit(d)
	if err != nil {
		return nil, nil
	}
	if sup.Config, err = LoadEffectiveConfig(sup.Root); err != nil {
		return nil, fmt.Errorf("find workspace: %s is a submodule of %s: %w", d, sup.Root, err)
	}
	return sup, nil
}

// Submodules returns the roots of the submodules checked out in w's tree,
// submodules of submodules too: the worktree (core.worktree) of each git
// dir kept under <common dir>/modules/. It reads the files rather than
// running `git submodule`, a program leasegate's git may not start.
func (w *Workspace) Submodules() ([]string, error) {
	if w.CommonDir == "" {
		return nil, nil
	}
	var roots []string
	if err := modulesUnder(filepath.Join(w.CommonDir, "modules"), &roots); err != nil {
		return nil, fmt.Errorf("list submodules: %w", err)
	}
	return roots, nil
}

// modulesUnder adds to roots the checked-out worktree of each submodule's
// git dir under dir, a modules directory (where a name may hold slashes,
// so a directory that is no git dir is searched on), and of its own
// submodules.
func modulesUnder(dir string, roots *[]string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if !e.IsDir() {
			continue
		}
		if !isGitDir(p, p) {
			err = modulesUnder(p, roots)
		} else {
			if root, ok := moduleWorktree(p); ok {
				*roots = append(*roots, root)
			}
			err = modulesUnder(filepath.Join(p, "modules"), roots)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// moduleWorktree returns the checkout of the submodule whose git dir is
// gitDir, when it is checked out: its core.worktree, relative to gitDir.
func moduleWorktree(gitDir string) (string, bool) {
	config := filepath.Join(gitDir, "config")
	set, err := readGitConfig(config)
	wt := set.worktree
	if err != nil {
		out, gerr := runGit(gitDir, gitEnv(), "config", "--file", config, "--get", "core.worktree")
		if gerr != nil {
			return "", false
		}
		wt = strings.TrimSpace(out)
	}
	if wt == "" {
		return "", false
	}
	if !filepath.IsAbs(wt) {
		wt = filepath.Join(gitDir, wt)
	}
	root, ok := resolve(wt)
	return root, ok && exists(filepath.Join(root, ".git"))
}
