//go:build linux && (amd64 || arm64)

package seccomp

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// maxSymlinks is the kernel's MAXSYMLINKS: more links in one lookup is
// ELOOP.
const maxSymlinks = 40

// deletedSuffix is what the kernel appends to the /proc link of a file or
// directory that no longer has a name.
const deletedSuffix = " (deleted)"

// errUnnamed means a name leads to a file without a name in the tree (an
// O_TMPFILE file, an unlinked file reached through an fd): changing it
// changes no path.
var errUnnamed = errors.New("file has no name")

// walker resolves paths on the host file system, component by component,
// the way the kernel will for the tracee: symlinks are followed where the
// syscall follows them, ".." is taken after the symlinks before it (not
// lexically), and the tracee's /proc/self is its own, not ours.
//
// Where the path stops existing, the rest is appended lexically: the
// syscall will create that name or fail. A ".." there, or any component
// after a file that is not a directory, fails the lookup as the kernel
// fails it (ENOENT, ENOTDIR): taken lexically it would name a file the
// kernel never reaches, and an open made in the worker's place would
// create it.
type walker struct {
	pid, tid int
	lookups  *lookups
	links    int
	// final is what an lstat of the result found, when resolve made one.
	final      fileKind
	finalKnown bool
}

// resolve resolves path relative to dir (absolute, symlink-free) with
// root as the lookup's "/". follow says whether a final symlink is
// followed.
func (w *walker) resolve(root, dir, path string, follow bool) (string, error) {
	if p, ok := w.resolveDirect(root, dir, path, follow); ok {
		return p, nil
	}
	if strings.HasPrefix(path, "/") {
		dir = root
	}
	missing := false
	for rest := path; ; {
		var comp string
		var err error
		comp, rest = nextComponent(rest)
		switch {
		case comp == "":
			return filepath.Clean(dir), nil
		case comp == ".":
		case comp == ".." && missing:
			return "", unix.ENOENT
		case comp == "..":
			dir = parentWithin(root, dir)
		case missing:
			dir = join(dir, comp)
		case dir == "/proc" && (comp == "self" || comp == "thread-self"):
			dir = w.procSelf(comp)
		default:
			noFollow := !follow && strings.Trim(rest, "/") == ""
			dir, rest, missing, err = w.step(root, dir, comp, rest, noFollow)
			if err != nil {
				return "", err
			}
		}
	}
}

// resolveDirect resolves, without the walk, the common path whose answer
// is the path as written: plain components, looked up from the host's
// root, not under /proc, every directory present and none a symlink, and
// no symlink at the end where it would be followed. The kernel checks the
// directories in one openat2 with RESOLVE_NO_SYMLINKS, where the walk
// takes an lstat per component. ok is false when the walk is needed; it
// then gives the answer, whatever made this check fail.
func (w *walker) resolveDirect(root, dir, path string, follow bool) (string, bool) {
	if root != "/" || !plainPath(path) {
		return "", false
	}
	full := path
	if !strings.HasPrefix(path, "/") {
		full = join(dir, path)
	}
	if full == "/proc" || strings.HasPrefix(full, "/proc/") {
		return "", false // /proc/self and magic links are the tracee's
	}
	parent := full[:strings.LastIndexByte(full, '/')]
	// dir is symlink-free already: only what the path adds needs a check.
	if parent != dir && parent != "" && !w.lookups.symlinkFree(parent) {
		return "", false
	}
	if follow {
		var st unix.Stat_t
		exists := unix.Lstat(full, &st) == nil
		if exists && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return "", false
		}
		w.final = fileKind{exists: exists, regular: exists && st.Mode&unix.S_IFMT == unix.S_IFREG}
		w.finalKnown = true
	}
	return full, true
}

// symlinkFree reports whether dir is a directory that the kernel reaches
// without following a symlink.
func symlinkFree(dir string) bool {
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
	fd, err := unix.Openat2(unix.AT_FDCWD, dir, &how)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}

// plainPath reports whether path has only ordinary components: no ".",
// "..", empty component or trailing slash.
func plainPath(path string) bool {
	rest := strings.TrimPrefix(path, "/")
	for {
		comp, tail, more := strings.Cut(rest, "/")
		if comp == "" || comp == "." || comp == ".." {
			return false
		}
		if !more {
			return true
		}
		rest = tail
	}
}

// step looks up comp in dir. It returns the next directory, the rest of
// the path (with a symlink's target spliced in front), and whether the
// name does not exist.
func (w *walker) step(root, dir, comp, rest string, noFollow bool) (string, string, bool, error) {
	next := join(dir, comp)
	if noFollow {
		return next, rest, false, nil
	}
	fi, err := os.Lstat(next)
	if err != nil {
		return next, rest, true, nil
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		if !fi.IsDir() && strings.Trim(rest, "/") != "" {
			return "", "", false, unix.ENOTDIR
		}
		return next, rest, false, nil
	}
	if w.links++; w.links > maxSymlinks {
		return "", "", false, unix.ELOOP
	}
	target, err := os.Readlink(next)
	if err != nil {
		return next, rest, true, nil
	}
	if isMagicLink(dir, comp) {
		return magicStep(next, target, rest)
	}
	if strings.HasPrefix(target, "/") {
		dir = root
	}
	return dir, target + "/" + rest, false, nil
}

// magicStep follows a /proc magic link (fd/N, cwd, root, exe). Unlike a
// symlink it jumps straight to the file: its text is that file's current
// path, "pipe:[123]" for an object outside the tree, or a path with
// " (deleted)" for a file that lost its name.
func magicStep(next, target, rest string) (string, string, bool, error) {
	switch {
	case !strings.HasPrefix(target, "/") && strings.Trim(rest, "/") != "":
		return "", "", false, unix.ENOTDIR
	case !strings.HasPrefix(target, "/"):
		return next, "", false, nil // a pipe or socket: report the link itself
	case isDeleted(target):
		return "", "", false, errUnnamed
	}
	return target, rest, false, nil
}

// fdTarget turns the /proc link of an fd into the file an fd-only syscall
// (ftruncate, fchmod, AT_EMPTY_PATH) affects.
func (w *walker) fdTarget(link string, fd int) (string, error) {
	switch {
	case !strings.HasPrefix(link, "/"):
		return "/proc/" + strconv.Itoa(w.pid) + "/fd/" + strconv.Itoa(fd), nil
	case isDeleted(link):
		return "", errUnnamed
	}
	return filepath.Clean(link), nil
}

// isDeleted reports whether a /proc link names a file that lost its name.
// A file really called "x (deleted)" still exists under that name.
func isDeleted(link string) bool {
	if !strings.HasSuffix(link, deletedSuffix) {
		return false
	}
	_, err := os.Lstat(link)
	return err != nil
}

// procSelf is the tracee's /proc/self or /proc/thread-self.
func (w *walker) procSelf(comp string) string {
	dir := "/proc/" + strconv.Itoa(w.pid)
	if comp == "thread-self" {
		dir += "/task/" + strconv.Itoa(w.tid)
	}
	return dir
}

// isMagicLink reports whether dir/comp is a /proc magic link:
// /proc/<id>[/task/<id>]/{cwd,root,exe} or .../fd/<n>.
func isMagicLink(dir, comp string) bool {
	rel, ok := strings.CutPrefix(dir, "/proc/")
	if !ok {
		return false
	}
	parts := strings.Split(rel, "/")
	if len(parts) >= 3 && parts[1] == "task" {
		parts = parts[2:]
	}
	if _, err := strconv.Atoi(parts[0]); err != nil {
		return false
	}
	switch len(parts) {
	case 1:
		return comp == "cwd" || comp == "root" || comp == "exe"
	case 2:
		return parts[1] == "fd"
	}
	return false
}

// nextComponent splits the first component off a path.
func nextComponent(path string) (comp, rest string) {
	path = strings.TrimLeft(path, "/")
	if i := strings.IndexByte(path, '/'); i >= 0 {
		return path[:i], path[i:]
	}
	return path, ""
}

// parentWithin is dir's parent, but never above root.
func parentWithin(root, dir string) string {
	if dir == root || dir == "/" {
		return dir
	}
	return filepath.Dir(dir)
}

// join appends one component to an absolute directory.
func join(dir, comp string) string {
	if dir == "/" {
		return "/" + comp
	}
	return dir + "/" + comp
}
