package sidecar

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/leasegate/leasegate/intercept/procfs"
)

// gitLockAncestors bounds how far up from the writing process heldGitLock
// looks: git's own children (a `git stash` runs `git reset --hard`, which
// may run a hook) sit a few levels below the git that took the lock.
const gitLockAncestors = 8

// heldGitLock names a git lock file (index.lock, HEAD.lock, a ref's lock)
// that process pid, or a process above it in the worker's tree, holds
// open, relative to the workspace root when it lies under it; "" when none
// does. A write of such a process that waits at the gate keeps the lock
// all the while, and every other git in the repository fails ("Unable to
// create '.git/index.lock': File exists") until the write is decided, so
// the contention and the blocker say so.
func (s *Sidecar) heldGitLock(pid int) string {
	self := os.Getpid()
	for range gitLockAncestors {
		if pid <= 1 || pid == self {
			return ""
		}
		if locks := procfs.GitLocks(pid); len(locks) > 0 {
			return s.shownLock(locks[0].Path)
		}
		parent, ok := procfs.Parent(pid)
		if !ok {
			return ""
		}
		pid = parent
	}
	return ""
}

// shownLock is lock file p as the workspace's people name it: relative to
// the root (".git/index.lock") when under it, else absolute (a linked
// worktree's git dir lies in the main checkout's).
func (s *Sidecar) shownLock(p string) string {
	rel, err := filepath.Rel(s.cfg.Workspace.Root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return filepath.ToSlash(rel)
}
