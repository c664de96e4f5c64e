//go:build linux

package spawn

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept/procfs"
)

// heldLock is a git lock file a process of the tree held open when the
// reaper killed it: its path and the file it named then.
type heldLock struct {
	path     string
	dev, ino uint64
}

// locksHeldBy returns the git lock files (a name ending in ".lock" inside
// a ".git" directory: index.lock, HEAD.lock, a ref's lock) that process
// pid holds: open, or named by its GIT_INDEX_FILE (git closes the index's
// lock while its hooks run and names it to them there). git makes such a
// file with O_EXCL, writes it and renames it over its target; a git
// killed before that leaves it behind, and every other git in the
// repository then refuses to run until it is removed by hand.
func locksHeldBy(pid int) []heldLock {
	proc := "/proc/" + strconv.Itoa(pid)
	var out []heldLock
	for _, l := range procfs.GitLocks(pid) {
		out = appendLock(out, l.Path, l.FD)
	}
	env, _ := os.ReadFile(proc + "/environ")
	for _, kv := range strings.Split(string(env), "\x00") {
		p, ok := strings.CutPrefix(kv, "GIT_INDEX_FILE=")
		if !ok || p == os.Getenv("GIT_INDEX_FILE") {
			// The same as the reaper's own: the lock of a git outside
			// the tree, whose hook started this worker, and still alive.
			continue
		}
		if !filepath.IsAbs(p) {
			cwd, err := os.Readlink(proc + "/cwd")
			if err != nil {
				continue
			}
			p = filepath.Join(cwd, p)
		}
		if procfs.IsGitLock(p) {
			out = appendLock(out, p, p)
		}
	}
	return out
}

// appendLock adds lock file p to locks with the identity of the file at
// name (p itself, or a descriptor of it under /proc).
func appendLock(locks []heldLock, p, name string) []heldLock {
	var st unix.Stat_t
	if unix.Stat(name, &st) != nil {
		return locks
	}
	return append(locks, heldLock{path: p, dev: st.Dev, ino: st.Ino})
}

// removeLeftLocks removes each lock file still naming the file a killed
// process held. Its holder is dead, so nobody will rename or remove it;
// a lock taken since by another git is another file and stays.
func removeLeftLocks(locks map[string]heldLock) {
	for _, l := range locks {
		var st unix.Stat_t
		if unix.Lstat(l.path, &st) == nil && st.Dev == l.dev && st.Ino == l.ino {
			_ = os.Remove(l.path)
		}
	}
}
