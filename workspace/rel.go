package workspace

import (
	"path/filepath"
	"strings"
)

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
	if filepath.Base(abs) == ".gitignore" {
		_, ok := Under(w.Root, abs)
		return ok
	}
	if w.GitDir == "" {
		return false
	}
	return isJoin(abs, w.GitDir, "/index") ||
		isJoin(abs, w.GitDir, "/info/exclude") ||
		isJoin(abs, w.CommonDir, "/info/exclude")
}

// isJoin reports whether p is filepath.Join(dir, name) for a clean
// absolute dir and a clean name that starts with "/", without joining.
func isJoin(p, dir, name string) bool {
	dir = strings.TrimSuffix(dir, "/") // "/" + "/index" joins as "/index"
	return len(p) == len(dir)+len(name) && strings.HasPrefix(p, dir) && strings.HasSuffix(p, name)
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

// Under returns p relative to base ("." for base itself) if p is base or
// beneath it, comparing strings only and allocating nothing: base and p
// are clean absolute paths. A sibling sharing base's prefix (/ws and
// /wsx) is not beneath it; an empty base holds nothing.
func Under(base, p string) (string, bool) {
	switch {
	case base == "":
		return "", false
	case p == base:
		return ".", true
	case base == "/":
		return p[1:], true
	case len(p) > len(base) && p[len(base)] == '/' && strings.HasPrefix(p, base):
		return p[len(base)+1:], true
	}
	return "", false
}

// resolveDirOf resolves the symlinks in the directory part of abs; the
// final element is kept as it is.
func resolveDirOf(abs string) string {
	if abs == "/" {
		return abs
	}
	return filepath.Join(ResolveExisting(filepath.Dir(abs)), filepath.Base(abs))
}
