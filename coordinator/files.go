package coordinator

import (
	"slices"

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
			return nil, pathError(f.Path, err)
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

// sameFileNote says which path of the holder's lease names the requested
// file, when the two share a file under different names; "" otherwise.
func sameFileNote(holder gate.Lease, paths []string, files []gate.File) string {
	hp, p := gate.SameFile(holder, gate.Scope{Files: files})
	if hp == "" || hp == p {
		return ""
	}
	for _, q := range paths {
		if overlapsHolder(q, holder) {
			return "" // a path conflict names itself
		}
	}
	return " (the same file as " + hp + ")"
}

func overlapsHolder(p string, h gate.Lease) bool {
	if h.Scope.Type == gate.ScopeFull {
		return true
	}
	return slices.ContainsFunc(h.Scope.Paths, func(hp string) bool { return gate.Overlap(hp, p) })
}
