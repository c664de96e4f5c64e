package coordinator

import (
	"slices"

	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
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
