package workspace

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/leasegate/leasegate/gate"
)

// ArgPath makes a path or glob given on a command line workspace-relative.
// Its literal part is resolved as the shell would (relative to cwd,
// symlinks followed) and must stay inside the workspace, or the error is
// a *gate.DeniedError with gate.ReasonOutsideWorkspace. The result is
// gate.CleanPath's (a trailing slash names the directory's tree).
func (w *Workspace) ArgPath(cwd, a string) (string, error) {
	trailing := strings.HasSuffix(a, "/")
	abs := a
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, a)
	}
	rel, inside := w.Rel(resolveLiteral(abs))
	if !inside {
		return "", &gate.DeniedError{Reason: gate.ReasonOutsideWorkspace, Message: fmt.Sprintf("%s is outside the workspace %s", a, w.Root)}
	}
	if trailing {
		rel += "/"
	}
	clean, err := gate.CleanPath(rel)
	if err != nil {
		return "", gate.AsDenied(err)
	}
	return clean, nil
}

// resolveLiteral is ResolveExisting for a path that may hold globs: the
// elements from the first glob on are kept as written.
func resolveLiteral(p string) string {
	lit, glob := p, ""
	for gate.IsGlob(lit) {
		lit, glob = filepath.Dir(lit), filepath.Join(filepath.Base(lit), glob)
	}
	return filepath.Join(ResolveExisting(lit), glob)
}
