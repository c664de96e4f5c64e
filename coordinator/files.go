package coordinator

import (
	"slices"

	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

// cleanFiles cleans the paths of a request's file identities and keeps
// those of the request's (clean, pair-expanded) paths: an identity of a
// path the request does not lease would cover nothing.
func cleanFiles(in []gate.File, paths []string) ([]gate.File, error) {
	var out []gate.File
	for _, f := range in {
		cp, err := gate.CleanPath(f.Path)
		if err != nil {
			return nil, gate.AsDenied(err)
		}
		if f.Ino == 0 {
			return nil, &gate.DeniedError{Reason: gate.ReasonInputInvalid, Message: "file " + f.Path + " has no inode number"}
		}
		f.Path = cp
		if slices.Contains(paths, cp) && !slices.ContainsFunc(out, func(g gate.File) bool { return g.Path == cp }) {
			out = append(out, f)
		}
	}
	return out, nil
}

// freshFiles returns files without each identity that an active lease
// records under another name when the requested file was born after that
// lease was granted: the lease's file was freed since and its inode number
// handed to a new file (workspace.BornAfter), which shares nothing with
// it. In a busy tree `sed -i` frees an inode at every save, and another
// worker's next temporary file soon has its number; kept, that identity
// made the worker's write wait for the lease and halt on a blocker, for
// nothing. The request then leases that path by name only. Call with c.mu
// held.
func (c *Coordinator) freshFiles(files []gate.File) []gate.File {
	if c.cfg.Workspace == "" {
		return files
	}
	var out []gate.File
	for i, f := range files {
		if c.reusedInode(f) {
			if out == nil {
				out = slices.Clone(files[:i:i])
			}
			continue
		}
		if out != nil {
			out = append(out, f)
		}
	}
	if out == nil {
		return files
	}
	return out
}

// reusedInode reports whether an active lease records f's identity under
// another path, granted before f's file was born. Call with c.mu held.
func (c *Coordinator) reusedInode(f gate.File) bool {
	one := gate.Scope{Files: []gate.File{f}}
	for _, l := range c.table.Overlapping(one) {
		if lp, _ := gate.SameFile(l, one); lp != "" && lp != f.Path && workspace.BornAfter(c.cfg.Workspace, f, l.AcquiredAt) {
			return true
		}
	}
	return false
}

// sameFileAs is the path of the holder's lease that names a requested
// file, when the request meets the lease only through a file they share
// under different names; "" otherwise (a path conflict names itself).
func sameFileAs(holder gate.Lease, paths []string, files []gate.File) string {
	hp, p := gate.SameFile(holder, gate.Scope{Files: files})
	if hp == "" || hp == p || slices.ContainsFunc(paths, holder.Scope.Overlaps) {
		return ""
	}
	return hp
}

// sameFileNote is sameFileAs for a message: " (the same file as f.txt)".
func sameFileNote(holder gate.Lease, paths []string, files []gate.File) string {
	if hp := sameFileAs(holder, paths, files); hp != "" {
		return " (the same file as " + gate.ShownPath(hp) + ")"
	}
	return ""
}

// heldPath is the path a blocker's holder leased: the blocked path, or the
// other name of its file.
func heldPath(rep blocker.Report) string {
	if rep.Holder.SameFileAs != "" {
		return rep.Holder.SameFileAs
	}
	return rep.Path
}
