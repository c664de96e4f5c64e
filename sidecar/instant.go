package sidecar

import (
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/intercept"
	"github.com/leasegate/leasegate/workspace"
)

var _ intercept.InstantDecider = (*Sidecar)(nil)

// DecideNow answers at once, from memory, the mutations that make up
// nearly all of a worker's syscalls: those that change nothing the gate
// covers (paths outside the workspace, the workspace root itself, files in
// git's directory) and those covered by leases this worker already holds.
// It leaves to Decide everything that needs the coordinator, git's ignore
// rules or a side effect: the state directory wherever it lies (refused
// with a notice), a write that changes which paths git ignores, a rename
// or removal inside git's directory (a commit lands that way; a removal
// may hold the state directory), a symlink (its target may be reported
// as written) and a hard link (its new name may lie outside the workspace).
//
// Paths are compared lexically, as patterns (gate.Literal), the form
// leases hold them in.  The seccomp gate reports them with the
// symlinks of their directories resolved, the FUSE gate as the root (the
// resolved workspace root) joined with the names its view looked up, and the workspace's root and
// state directory are resolved too, so Workspace.Rel's second try (an
// lstat of every directory of a path that is not lexically inside) could
// not change the answer and is not paid for on every syscall.
func (s *Sidecar) DecideNow(m intercept.Mutation) (bool, error) {
	if m.Op == intercept.OpSymlink || m.Op == intercept.OpLink {
		return false, nil
	}
	m = s.dealias(m)
	var buf [2]string
	rels := buf[:0]
	for _, abs := range m.Paths {
		rel, kind := s.quickKind(m.Op, abs)
		switch kind {
		case quickSlow:
			return false, nil
		case quickGated:
			rels = append(rels, rel)
		}
	}
	return len(rels) == 0 || s.held.covers(rels), nil
}

// quickKind is what DecideNow knows about one path of a mutation.
type quickKind uint8

const (
	quickNotGated quickKind = iota // outside the gate: no lease needed
	quickGated                     // gated: a held lease must cover it
	quickSlow                      // Decide must look at it
)

// quickKind sorts one absolute path of a mutation of kind op by where it
// lies (workspace.Locate).
func (s *Sidecar) quickKind(op intercept.Op, abs string) (string, quickKind) {
	ws := s.cfg.Workspace
	if ws.AffectsIgnore(abs) {
		return "", quickSlow
	}
	if _, rule := ws.RuleFile(abs); rule {
		return "", quickSlow
	}
	v := ws.Locate(abs, reachOf(op, op == intercept.OpRename))
	switch v.Class {
	case workspace.Gated:
		return gate.Literal(v.Rel), quickGated
	case workspace.Root:
		return "", quickNotGated
	case workspace.Outside:
		// A linked worktree's HEAD and branches lie outside its root.
		if op == intercept.OpRename && s.refUpdate(abs) {
			return "", quickSlow
		}
		if _, linked := s.linkedIn(op, abs); linked {
			return "", quickSlow
		}
		return "", quickNotGated
	case workspace.GitDir:
		// The rule's answer inside .git is fixed (it never asks git), so
		// it cannot block; a rename there may land a commit.
		if op != intercept.OpRename && op != intercept.OpRmdir {
			return "", quickNotGated
		}
	}
	return "", quickSlow
}

// linkedIn returns the workspace path of the file abs names when abs lies
// outside the workspace, op changes the file itself (not its name) and an
// active lease records that file: a hard link made outside, by a process no
// sidecar gates, is another name of a leased file, and writing through it
// is gated as a write of the leased path. Nothing is looked up while no
// lease records a file identity; otherwise one lstat.
func (s *Sidecar) linkedIn(op intercept.Op, abs string) (string, bool) {
	switch op {
	case intercept.OpOpenWrite, intercept.OpTruncate, intercept.OpChmod, intercept.OpChown, intercept.OpUtimes, intercept.OpXattr, intercept.OpSetFlags:
	default:
		return "", false
	}
	if s.leased.nInodes.Load() == 0 {
		return "", false
	}
	dev, ino, ok := linkedFile(abs)
	if !ok {
		return "", false
	}
	return s.leased.pathOf(dev, ino)
}
