package workspace

import (
	"path/filepath"

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
