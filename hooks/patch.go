package hooks

import (
	"errors"
	"fmt"
	"strings"
)

// The apply_patch envelope's markers. Hunk lines start with a space, "+",
// "-" or "@@", so a line starting with "*** " is always a marker.
const (
	patchBegin  = "*** Begin Patch"
	patchAdd    = "*** Add File: "
	patchUpdate = "*** Update File: "
	patchDelete = "*** Delete File: "
	patchMove   = "*** Move to: "
)

// PatchOp is what a patch does to one file.
type PatchOp string

const (
	PatchAdd    PatchOp = "add"
	PatchUpdate PatchOp = "update"
	PatchDelete PatchOp = "delete"
)

// PatchFile is one file of an apply_patch patch. MoveTo is set when an
// update also renames the file.
type PatchFile struct {
	Op     PatchOp
	Path   string
	MoveTo string
}

// ErrNoFiles is returned by ParsePatch for a patch that names no file.
var ErrNoFiles = errors.New("the patch names no file (want *** Add File:, *** Update File: or *** Delete File:)")

// ParsePatch lists the files an apply_patch patch touches, in order, with
// paths as written (Codex writes them relative to the session's cwd).
// Lines may end in CRLF; text around the envelope (a heredoc) is ignored.
func ParsePatch(patch string) ([]PatchFile, error) {
	var files []PatchFile
	for n, line := range strings.Split(patch, "\n") {
		line = strings.TrimRight(line, "\r")
		f, ok, err := patchLine(line)
		switch {
		case err != nil:
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		case !ok:
			continue
		case f.Op == "":
			if len(files) == 0 || files[len(files)-1].Op != PatchUpdate || files[len(files)-1].MoveTo != "" {
				return nil, fmt.Errorf("line %d: %q does not follow an *** Update File: line", n+1, line)
			}
			files[len(files)-1].MoveTo = f.MoveTo
		default:
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return nil, ErrNoFiles
	}
	return files, nil
}

// patchLine reads one marker line. A move comes back with an empty Op.
func patchLine(line string) (PatchFile, bool, error) {
	for _, m := range []struct {
		prefix string
		op     PatchOp
	}{{patchAdd, PatchAdd}, {patchUpdate, PatchUpdate}, {patchDelete, PatchDelete}, {patchMove, ""}} {
		rest, ok := strings.CutPrefix(line, m.prefix)
		if !ok {
			continue
		}
		p := strings.TrimSpace(rest)
		if p == "" {
			return PatchFile{}, false, fmt.Errorf("%q names no path", strings.TrimSpace(m.prefix))
		}
		if m.op == "" {
			return PatchFile{MoveTo: p}, true, nil
		}
		return PatchFile{Op: m.op, Path: p}, true, nil
	}
	return PatchFile{}, false, nil
}

// PatchPaths lists every path a patch mutates, each once: the files it
// adds, updates or deletes and the destinations of its moves.
func PatchPaths(files []PatchFile) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		for _, p := range []string{f.Path, f.MoveTo} {
			if p != "" && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}
