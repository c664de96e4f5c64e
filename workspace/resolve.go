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
// dangling symlink is kept as the link itself. Where names fold case
// (Windows; macOS unless the workspace's volume is case-sensitive) each
// existing element is spelt as on disk: its case, on Windows its long
// name, on macOS its Unicode normalization. p is absolute; a relative p is
// only cleaned.
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
	return r.resolveFrom(vol+string(filepath.Separator), splitPath(p[len(vol):]))
}

// ResolveBelow is ResolveExisting of rel joined to root, for a root that
// is absolute and resolved already (a Workspace's Root): only rel's
// elements are looked up, not root's again, which saves a request that
// names a file in the workspace one lstat per element of the root.
func ResolveBelow(root, rel string) string {
	r := native()
	if r.lexicalDotDot {
		rel = filepath.Clean(rel)
	}
	return r.resolveFrom(root, splitPath(rel))
}

// resolveFrom resolves elems one by one from done, a resolved directory.
func (r pathRules) resolveFrom(done string, elems []string) string {
	for i, e := range elems {
		if e == ".." {
			done = filepath.Dir(done)
			continue
		}
		next := filepath.Join(done, e)
		real, ok := r.follow(next)
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
// Where names fold case the element comes back spelt as on disk, and so
// does the whole path a symlink leads to, so that two spellings of one
// file are one relative path (and one lease).
func (r pathRules) follow(p string) (string, bool) {
	fi, err := os.Lstat(p)
	switch {
	case err != nil:
		return "", false
	case fi.Mode()&fs.ModeSymlink == 0 && r.fold:
		return onDisk(p), true
	case fi.Mode()&fs.ModeSymlink == 0:
		return p, true
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", false
	}
	if r.fold {
		real = spelt(real)
	}
	return real, true
}

// spelt returns the existing absolute path p, free of symlinks, with each
// element spelt as on disk.
func spelt(p string) string {
	vol := filepath.VolumeName(p)
	done := vol + string(filepath.Separator)
	for _, e := range splitPath(p[len(vol):]) {
		done = onDisk(filepath.Join(done, e))
	}
	return done
}

// splitPath returns the elements of a path without its volume, dropping
// empty and "." elements.
func splitPath(p string) []string {
	elems := strings.FieldsFunc(p, func(r rune) bool { return r < 0x80 && os.IsPathSeparator(uint8(r)) })
	return slices.DeleteFunc(elems, func(e string) bool { return e == "." })
}
