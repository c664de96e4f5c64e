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
// the contention and the blocker say so. The look stops at the sidecar,
// which is above the worker's tree (with the reaper between them): what is
// above it is not the worker's.
func (s *Sidecar) heldGitLock(pid int) string {
	if !s.gitLocked() {
		return ""
	}
	for range gitLockAncestors {
		if pid <= 1 || pid == os.Getpid() {
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

// gitLocked reports whether the checkout's index or HEAD is locked now,
// which a git that writes the working tree holds throughout (checkout,
// switch, reset, stash, merge, rebase). A few lstats spare every other
// gated write the look through /proc, which costs tens of microseconds a
// process; a ref's lock held alone, which git keeps only while it writes
// that ref, is not looked for.
func (s *Sidecar) gitLocked() bool {
	ws := s.cfg.Workspace
	for i, dir := range []string{ws.GitDir, ws.CommonDir} {
		if dir == "" || (i == 1 && dir == ws.GitDir) {
			continue
		}
		for _, name := range []string{"index.lock", "HEAD.lock"} {
			if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
				return true
			}
		}
	}
	return false
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
