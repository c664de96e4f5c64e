package workspace

import (
	"path/filepath"
	"strings"

	"github.com/leasegate/leasegate/gate"
)

// Verdict is what one absolute path is to the gate, and why.
type Verdict struct {
	// Class is the path's class; Gated paths pass the lease gate.
	Class Class
	// Rel is the path relative to the root, slash separated and clean
	// ("." for the root itself), when it lies inside the workspace; ""
	// for an Outside path and a state directory outside the root.
	Rel string
	// Why is the reason in a few words, as `leasegate status` shows it.
	Why string
}

const (
	whyOutside   = "outside: not under the workspace root"
	whyRoot      = "root: the workspace root itself; only what lies beneath it is gated"
	whyState     = "state dir: leasegate's own state; workers may never write it"
	whyHolds     = "state dir: holds leasegate's state; workers may never remove or move it"
	whyOperator  = "operator file: the gating rule; workers may not change it"
	whyGitDir    = "git dir: not gated, git serializes itself"
	whyUndecided = "inside the workspace: the rule's globs and git's ignore rules decide"
)

// Reach is how much a mutation of a path changes.
type Reach uint8

const (
	// ReachFile is a mutation of the path alone: a file's content, name or
	// metadata, a link, an empty directory's metadata.
	ReachFile Reach = iota
	// ReachDir is the creation of a directory: ignore rules match the path
	// as a directory ("build/" only matches what git knows to be one). A
	// directory inside the root that holds the state directory is
	// StateDir, as for a tree; the root itself is Root, since a mkdir -p
	// passes through it.
	ReachDir
	// ReachTree is a rename or removal of a directory, a mutation of
	// everything beneath it: a directory that holds the state directory is
	// StateDir.
	ReachTree
)

// Refused reports whether v is a path no worker may change, whoever holds
// it: leasegate's state directory (or a directory holding it) and the
// operator's leasegate.json.
func (v Verdict) Refused() bool { return v.Class == StateDir || v.Class == Operator }

// ClassifyPath is the one classifier of an absolute path: Outside, the
// state directory, not gated (the root, git's directory, the operator's
// file, excluded, ignored by git) or Gated with its workspace-relative
// path, for a mutation of the given reach. A ReachDir or ReachTree path is
// Gated when anything beneath it may be.
//
// abs is clean, absolute and has its directories' symlinks resolved, as
// the seccomp gate reports a path and ResolvePath returns one; the
// comparison with the root and the state directory is lexical.
func (r *Rule) ClassifyPath(abs string, reach Reach) Verdict {
	v := r.ws.Locate(abs, reach)
	if v.Class != Gated {
		return v
	}
	x := r.lookup(reach != ReachFile, v.Rel)
	return Verdict{Class: x.class, Rel: v.Rel, Why: x.why}
}

// Locate is the first, lexical step of ClassifyPath: where abs lies. It
// answers Outside, StateDir, Root, Operator and GitDir as ClassifyPath
// does; Gated means only that abs lies elsewhere in the workspace, where
// the rule's globs and git's ignore rules decide. It does no system call
// and allocates nothing (on Windows, only the relative path spelt with
// "/"), for a caller that must answer at once.
func (w *Workspace) Locate(abs string, reach Reach) Verdict {
	if rel, in := Under(w.Root, abs); in {
		c, why := w.place(reach, rel, abs)
		return Verdict{Class: c, Rel: rel, Why: why}
	}
	// A linked worktree's state directory lies in the main checkout's git
	// dir, outside the root, and the root's parents hold it too.
	if _, in := Under(w.StateDir, abs); in {
		return Verdict{Class: StateDir, Why: whyState}
	}
	if _, above := Under(abs, w.StateDir); above && reach == ReachTree {
		return Verdict{Class: StateDir, Why: whyHolds}
	}
	return Verdict{Class: Outside, Why: whyOutside}
}

// LocatePattern is Locate for a workspace-relative path or glob as
// ArgPath returns it. A glob is located by the directory its literal part
// names, so that it is the state directory only when everything it may
// match lies there: ".git/leasegate/**" is, "*.json" is not.
func (w *Workspace) LocatePattern(rel string) Verdict {
	lit := gate.LiteralPrefix(rel)
	return w.Locate(filepath.Join(w.Root, filepath.FromSlash(lit)), ReachFile)
}

// place is where abs, inside the root at rel, lies for a mutation of the
// given reach: the state directory (or a directory holding it), the root,
// the operator's file, git's directory, or elsewhere (Gated).
func (w *Workspace) place(reach Reach, rel, abs string) (Class, string) {
	if _, in := Under(w.StateDir, abs); in {
		return StateDir, whyState
	}
	if reach == ReachTree || (reach == ReachDir && rel != ".") {
		if _, above := Under(abs, w.StateDir); above {
			return StateDir, whyHolds
		}
	}
	switch {
	case rel == ".":
		return Root, whyRoot
	case native().same(rel, ConfigFile):
		return Operator, whyOperator
	case w.inGitDir(rel, abs):
		return GitDir, whyGitDir
	}
	return Gated, whyUndecided
}

// inGitDir reports whether abs, inside the root at rel, is in a ".git"
// (a directory, or the file a linked worktree or submodule has), the
// root's or that of a repository nested anywhere in the tree, or in a git
// dir that lies inside the root elsewhere. Git never tracks a path with a
// ".git" component, and a nested repository's git serializes itself as
// the root's does: gating its lock files would stall two agents that
// both run git there. Outside git, ".git" is an ordinary name.
func (w *Workspace) inGitDir(rel, abs string) bool {
	if w.GitDir == "" {
		return false
	}
	if hasGitComponent(rel) {
		return true
	}
	_, inGit := Under(w.GitDir, abs)
	_, inCommon := Under(w.CommonDir, abs)
	return (inGit && w.GitDir != w.Root) || (inCommon && w.CommonDir != w.Root)
}

// hasGitComponent reports whether one of rel's components is ".git".
func hasGitComponent(rel string) bool {
	for rest := rel; rest != ""; {
		comp, tail, _ := strings.Cut(rest, "/")
		if native().same(comp, ".git") {
			return true
		}
		rest = tail
	}
	return false
}
