package gate

import (
	"fmt"
	"slices"
)

// File is the identity of the file a scope path named when the lease was
// asked for: the device and inode number every name of one file shares.
// A lease on a path with a File covers that file under any of its names
// (hard links made before the lease), and keeps covering it when it is
// renamed. Identity is data here: whoever asks for a lease looks the file
// up and sends it; the table only compares numbers.
type File struct {
	Path string `json:"path"` // the scope path whose file this is
	Dev  uint64 `json:"dev"`
	Ino  uint64 `json:"ino"`
}

// fileKey is what two names of one file have in common.
type fileKey struct{ dev, ino uint64 }

func (f File) key() fileKey { return fileKey{f.Dev, f.Ino} }

// FileOf returns the identity the scope records for path p.
func (s Scope) FileOf(p string) (File, bool) {
	for _, f := range s.Files {
		if f.Path == p {
			return f, true
		}
	}
	return File{}, false
}

// SameFile returns the path of l (lp) and the path of s (sp) that name
// one file, or "", "" when l and s record no file in common.
func SameFile(l Lease, s Scope) (lp, sp string) {
	for _, lf := range l.Scope.Files {
		for _, sf := range s.Files {
			if lf.key() == sf.key() {
				return lf.Path, sf.Path
			}
		}
	}
	return "", ""
}

// validFiles checks that every identity names a path of the scope, once,
// and a real inode (inode 0 is no file).
func validFiles(s Scope) error {
	for i, f := range s.Files {
		if f.Ino == 0 {
			return fmt.Errorf("file %q has no inode number", f.Path)
		}
		if !slices.Contains(s.Paths, f.Path) {
			return fmt.Errorf("file %q is not a path of the scope", f.Path)
		}
		for _, g := range s.Files[:i] {
			if g.Path == f.Path {
				return fmt.Errorf("file %q has two identities", f.Path)
			}
		}
	}
	return nil
}
