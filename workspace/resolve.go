package workspace

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ResolveExisting follows the symlinks in the longest prefix of p that
// exists, p itself included, and keeps the missing rest as written (a
// file about to be created, a mkdir -p in progress). A ".." is taken as
// the system takes it: a Unix kernel from the directory reached so far
// with its symlinks followed (with link -> /ws/src, /tmp/link/../x is
// /ws/x, not /tmp/x), Windows by removing the element before it. A
// dangling symlink is kept as the link itself. On Windows each existing
// element is spelt as on disk (its case, its long name). p is absolute; a
// relative p is only cleaned.
func ResolveExisting(p string) string {
	return native().resolveExisting(p)
}

// resolveExisting is ResolveExisting by the rules r.
func (r pathRules) resolveExisting(p string) string {
	switch {
	case !filepath.IsAbs(p):
		return filepath.Clean(p)
	case r.lexicalDotDot:
		p = filepath.Clean(p)
	}
	vol := filepath.VolumeName(p)
	done := vol + string(filepath.Separator)
	elems := splitPath(p[len(vol):])
	for i, e := range elems {
		if e == ".." {
			done = filepath.Dir(done)
			continue
		}
		next := filepath.Join(done, e)
		real, ok := follow(next)
		if !ok {
			return filepath.Join(append([]string{next}, elems[i+1:]...)...)
		}
		done = real
	}
	return done
}

// ResolvePath is the file that a tool writing p from cwd writes: p made
// absolute against cwd (the current directory when cwd is empty) and
// resolved by ResolveExisting, so that a link is the file it names and a
// ".." is applied as the system applies it.
func ResolvePath(cwd, p string) string {
	if !filepath.IsAbs(p) {
		if cwd == "" {
			cwd, _ = os.Getwd()
		}
		p = native().join(cwd, p)
	}
	return ResolveExisting(p)
}

// follow resolves the final element of p, whose directory is resolved
// already. It reports false when p does not exist or is a dangling link.
// Where names are case-insensitive the element comes back spelt as on
// disk, so that two spellings of one file are one relative path (and one
// lease).
func follow(p string) (string, bool) {
	fi, err := os.Lstat(p)
	if err != nil {
		return "", false
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		return onDisk(p), true
	}
	real, err := filepath.EvalSymlinks(p)
	return real, err == nil
}

// splitPath returns the elements of a path without its volume, dropping
// empty and "." elements.
func splitPath(p string) []string {
	elems := strings.FieldsFunc(p, func(r rune) bool { return r < 0x80 && os.IsPathSeparator(uint8(r)) })
	return slices.DeleteFunc(elems, func(e string) bool { return e == "." })
}
