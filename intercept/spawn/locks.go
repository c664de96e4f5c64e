//go:build linux

package spawn

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept/procfs"
)

// heldLock is a git lock file a process of the tree held when the reaper
// killed it: its path and the file it named then. A lock made is one a
// killed git had made and closed (gitDir is that git's directory): nothing
// shows it was that git's but when it was made, so it is removed only if
// nothing else can be holding it (lockInUse).
type heldLock struct {
	path     string
	dev, ino uint64
	made     bool
	gitDir   string
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

// locksMadeBy returns the lock files of the git directory that git process
// pid works in (index.lock, HEAD.lock) which it may have made and closed: a
// commit writes the index's lock, closes it and then runs its hooks, and
// while it forks one the lock is neither open nor named by any process.
// Each is one that exists now and was made since pid started.
func locksMadeBy(pid int) []heldLock {
	started, ok := procfs.StartedAt(pid)
	if !ok || !procfs.IsGit(pid) {
		return nil
	}
	dir := gitDirOf(pid)
	if dir == "" {
		return nil
	}
	var out []heldLock
	for _, name := range []string{"index.lock", "HEAD.lock"} {
		p := filepath.Join(dir, name)
		var st unix.Statx_t
		if unix.Statx(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BTIME|unix.STATX_INO, &st) != nil {
			continue
		}
		made := st.Ctime // a lock file is written once, when made
		if st.Mask&unix.STATX_BTIME != 0 {
			made = st.Btime
		}
		// The start is good to a clock tick: a lock made in the same
		// tick as its git counts.
		if time.Unix(made.Sec, int64(made.Nsec)).Before(started.Add(-2 * startTick)) {
			continue // there before this git: another's
		}
		out = append(out, heldLock{path: p, dev: unix.Mkdev(st.Dev_major, st.Dev_minor), ino: st.Ino, made: true, gitDir: dir})
	}
	return out
}

// startTick is how precisely /proc gives a process's start.
const startTick = 10 * time.Millisecond

// gitDirOf returns the git directory process pid works in: its GIT_DIR, or
// the ".git" (a directory, or a linked worktree's file naming one) in its
// working directory or the nearest above it. "" when none is found.
func gitDirOf(pid int) string {
	proc := "/proc/" + strconv.Itoa(pid)
	cwd, err := os.Readlink(proc + "/cwd")
	if err != nil {
		return ""
	}
	env, _ := os.ReadFile(proc + "/environ")
	for _, kv := range strings.Split(string(env), "\x00") {
		if p, ok := strings.CutPrefix(kv, "GIT_DIR="); ok && p != "" {
			if !filepath.IsAbs(p) {
				p = filepath.Join(cwd, p)
			}
			return p
		}
	}
	for dir := cwd; ; dir = filepath.Dir(dir) {
		if filepath.Base(dir) == ".git" {
			return dir // git runs in its own directory: a hook's git, a bare look
		}
		dot := filepath.Join(dir, ".git")
		if fi, err := os.Stat(dot); err == nil {
			if fi.IsDir() {
				return dot
			}
			b, err := os.ReadFile(dot)
			if p, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); err == nil && ok {
				if !filepath.IsAbs(p) {
					p = filepath.Join(dir, p)
				}
				return filepath.Clean(p)
			}
			return ""
		}
		if dir == filepath.Dir(dir) {
			return ""
		}
	}
}

// lockInUse reports whether a live process may be holding lock file l,
// made and closed by a killed git: one holds it open or names it as its
// index, or a git works in the same git directory (it may be between
// making its own lock and running a hook, as the killed one was). Every
// process this one's /proc shows is looked at; a lock is left in place
// when in doubt.
func lockInUse(l heldLock) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		for _, h := range locksHeldBy(pid) {
			if h.path == l.path {
				return true
			}
		}
		if procfs.IsGit(pid) && gitDirOf(pid) == l.gitDir {
			return true
		}
	}
	return false
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
		if unix.Lstat(l.path, &st) == nil && st.Dev == l.dev && st.Ino == l.ino && !(l.made && lockInUse(l)) {
			_ = os.Remove(l.path)
		}
	}
}
