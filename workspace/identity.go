package workspace

import (
	"path/filepath"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// Files looks up the files that workspace-relative paths, patterns as
// gate.Literal makes them, name now: the
// device and inode of each existing file that is not a directory, so that
// the coordinator can tell two names of one file from two files. A final
// symlink is not followed (the sidecar's paths are resolved already: a
// followed link is reported as its target). A path that does not exist, a
// directory and a glob ("dir/**") have no identity: a directory has one
// name, and a new file no other name yet. One lstat per path.
func (ws *Workspace) Files(paths []string) []gate.File {
	var out []gate.File
	for _, rel := range paths {
		if gate.IsGlob(rel) {
			continue
		}
		dev, ino, ok := fileID(filepath.Join(ws.Root, filepath.FromSlash(gate.Unescape(rel))))
		if !ok {
			continue
		}
		out = append(out, gate.File{Path: rel, Dev: dev, Ino: ino})
	}
	return out
}

// BornAfter reports whether f, the identity of the file at the
// workspace-relative f.Path under root, names a file made after t. A lease
// granted at t that records the same device and inode numbers recorded
// another file: the one it named was freed since (replaced by a rename
// over its name, as `sed -i` and editors save), and the file system handed
// its inode number to a new file. False where the file system keeps no
// birth time, or the path names another file now.
func BornAfter(root string, f gate.File, t time.Time) bool { return bornAfter(root, f, t) }
