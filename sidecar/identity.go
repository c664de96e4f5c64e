package sidecar

import (
	"path/filepath"
	"syscall"

	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
)

// identities looks up the files that gated paths (workspace-relative)
// name now: device and inode of each existing file that is not a
// directory, so the coordinator can tell two names of one file apart from
// two files. The paths come resolved from the seccomp gate (a followed
// final symlink is its target already), so the lookup does not follow a
// final symlink. A path that does not exist, a directory and a subtree
// ("dir/**") have no identity: a directory has one name, and a new file has
// no other name yet.
//
// This is one lstat per path, paid only by mutations that go to the
// coordinator: those the sidecar answers from memory never look.
func (s *Sidecar) identities(paths []string) []gate.File {
	var out []gate.File
	for _, rel := range paths {
		if gate.IsGlob(rel) {
			continue
		}
		var st syscall.Stat_t
		if syscall.Lstat(filepath.Join(s.cfg.Workspace.Root, filepath.FromSlash(rel)), &st) != nil || st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
			continue
		}
		out = append(out, gate.File{Path: rel, Dev: uint64(st.Dev), Ino: uint64(st.Ino)})
	}
	return out
}

// sameFile names the holder's path when the holder's lease covers a
// requested file under another name: " (the same file as f.txt)".
func sameFile(holder gate.Lease, req coordinator.MutateRequest) string {
	hp, p := gate.SameFile(holder, gate.Scope{Files: req.Files})
	if hp == "" || hp == p {
		return ""
	}
	return " (the same file as " + hp + ")"
}
