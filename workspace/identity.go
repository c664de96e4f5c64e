package workspace

import (
	"path/filepath"
	"syscall"

	"github.com/leasegate/leasegate/gate"
)

// Files looks up the files that workspace-relative paths name now: the
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
		var st syscall.Stat_t
		if syscall.Lstat(filepath.Join(ws.Root, filepath.FromSlash(rel)), &st) != nil || st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
			continue
		}
		out = append(out, gate.File{Path: rel, Dev: uint64(st.Dev), Ino: uint64(st.Ino)})
	}
	return out
}
