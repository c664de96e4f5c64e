//go:build linux

package procfs

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// GitLock is a git lock file a process holds open: Path is the file its
// descriptor links to, FD the descriptor's name under /proc (stat it for
// the identity of the file the process holds, whatever was renamed since).
type GitLock struct {
	Path string
	FD   string
}

// GitLocks returns the git lock files process pid (a thread group: its
// threads share the descriptor table) holds open: a name ending in ".lock"
// inside a ".git" directory — index.lock, HEAD.lock, a ref's lock. git makes
// such a file with O_EXCL and keeps it until it renames it over its target,
// and every other git in the repository refuses to run meanwhile. A process
// gone or unreadable holds none that can be named.
func GitLocks(pid int) []GitLock {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	ents, _ := os.ReadDir(dir)
	var out []GitLock
	for _, e := range ents {
		fd := filepath.Join(dir, e.Name())
		if p, err := os.Readlink(fd); err == nil && IsGitLock(p) {
			out = append(out, GitLock{Path: p, FD: fd})
		}
	}
	return out
}

// IsGitLock reports whether p names a lock file inside a git directory.
func IsGitLock(p string) bool {
	return strings.HasSuffix(p, ".lock") && strings.Contains(p, "/.git/")
}
