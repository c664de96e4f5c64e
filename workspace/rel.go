package workspace

import "path/filepath"

// Rel converts an absolute path to a clean workspace-relative slash path:
// "." for the root itself, "src/a.go" beneath it. A path outside the root,
// including a sibling sharing its prefix (/work/mainx for root /work/main),
// is not inside.
//
// The check is lexical first. A path that is not lexically under the root
// is checked again with the symlinks in its directory resolved, so a path
// through a symlink to the root (/tmp on systems where it is a link) is
// inside. The final element is never followed: a mutation of a symlink
// mutates the link, not what it names.
func (w *Workspace) Rel(abs string) (rel string, inside bool) {
	return within(w.Root, abs)
}

// AffectsIgnore reports whether writing abs can change which paths git
// ignores or tracks: a .gitignore in the workspace, info/exclude, or the
// index (a force-added file stops being ignored). The sidecar calls
// Rule.Invalidate after such a write. In a linked worktree the index and
// the shared info/exclude lie outside the root.
//
// AffectsIgnore runs for every path the sidecar is asked about, so it
// compares strings only and allocates nothing: abs must be clean and
// absolute with its directories' symlinks resolved, as the seccomp gate
// reports paths.
func (w *Workspace) AffectsIgnore(abs string) bool {
	name := filepath.Base(abs)
	switch {
	case native().same(name, ".gitignore"):
		_, ok := Under(w.Root, abs)
		return ok
	case w.GitDir == "":
		return false
	case native().same(name, "index"):
		return isJoin(abs, w.GitDir, "index")
	case native().same(name, "exclude"):
		return isJoin(abs, w.GitDir, "info/exclude") || isJoin(abs, w.CommonDir, "info/exclude")
	}
	return false
}

// isJoin reports whether p is the file name (slash separated) in the clean
// absolute dir, without joining.
func isJoin(p, dir, name string) bool {
	rel, ok := Under(dir, p)
	return ok && rel == name
}

// within returns abs relative to base if it is base or beneath it,
// lexically or once its directory's symlinks are resolved.
func within(base, abs string) (string, bool) {
	if !filepath.IsAbs(abs) {
		return "", false
	}
	abs = filepath.Clean(abs)
	if rel, ok := Under(base, abs); ok {
		return rel, true
	}
	real := resolveDirOf(abs)
	if real == abs {
		return "", false
	}
	return Under(base, real)
}

// resolveDirOf resolves the symlinks in the directory part of abs; the
// final element is kept as it is.
func resolveDirOf(abs string) string {
	if abs == "/" {
		return abs
	}
	return filepath.Join(ResolveExisting(filepath.Dir(abs)), filepath.Base(abs))
}
