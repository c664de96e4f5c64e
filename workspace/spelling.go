package workspace

import (
	"os"
	"path/filepath"
	"strings"
)

// Spelling returns rel, a clean slash-separated path relative to the
// workspace root, with each element that exists spelt as its directory
// keeps it where the volume folds case (Windows; macOS unless the volume
// is case-sensitive): "pkg/Foo_test.go" for "pkg/foo_TEST.go" asked. The
// elements from the first missing one on keep the spelling given, and no
// symlink is followed: a link is spelt as the link is named. Where case
// counts it returns rel without a look at the disk.
func Spelling(root, rel string) string { return native().spelling(root, rel, existingOnDisk) }

// existingOnDisk returns the path p spelt as on disk (see onDisk) and
// true, or p and false when nothing is there.
func existingOnDisk(p string) (string, bool) {
	if _, err := os.Lstat(p); err != nil {
		return p, false
	}
	return onDisk(p), true
}

// spelling is Spelling by the rules r, with lookup spelling a path as on
// disk and reporting whether it exists.
func (r pathRules) spelling(root, rel string, lookup func(string) (string, bool)) string {
	if !r.fold || rel == "." {
		return rel
	}
	elems := strings.Split(rel, "/")
	dir := root
	for i, e := range elems {
		p, ok := lookup(filepath.Join(dir, e))
		if !ok {
			break
		}
		elems[i], dir = filepath.Base(p), p
	}
	return strings.Join(elems, "/")
}
