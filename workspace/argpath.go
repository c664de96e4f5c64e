package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/leasegate/leasegate/gate"
)

// ArgPath makes a path or glob given on a command line workspace-relative.
// Its literal part is resolved as the shell would (relative to cwd,
// symlinks followed) and must stay inside the workspace, or the error is
// a *gate.DeniedError with gate.ReasonOutsideWorkspace. The result is
// gate.CleanPath's (a trailing separator names the directory's tree).
func (w *Workspace) ArgPath(cwd, a string) (string, error) {
	if a == "" {
		// Cleaned, "" would be "." and be refused as the workspace root,
		// which the caller never named.
		return "", &gate.DeniedError{Reason: gate.ReasonInputInvalid, Message: "a path is empty: give a file, a folder (ending in /) or a glob"}
	}
	trailing := a != "" && os.IsPathSeparator(a[len(a)-1]) // on Windows "\" too
	abs := a
	switch {
	case cwd == "" && !filepath.IsAbs(a):
		abs = filepath.Clean(a) // not absolute: outside
	case !filepath.IsAbs(a):
		// Not filepath.Join, which would apply a ".." before the symlink
		// in front of it is followed.
		abs = native().join(cwd, a)
	}
	rel, inside := w.relThroughAliases(resolveLiteral(abs))
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

// relThroughAliases is Rel, and for a path outside the root the relative
// path of the workspace file it names through a bind mount (Aliases): an
// operator may name a file by either path. The mount table is read only
// for a path outside the root.
func (w *Workspace) relThroughAliases(abs string) (string, bool) {
	if rel, inside := w.Rel(abs); inside {
		return rel, true
	}
	aliases, err := w.Aliases()
	if err != nil {
		return "", false
	}
	if in, through := Dealias(aliases, abs); through {
		return w.Rel(in)
	}
	return "", false
}

// resolveLiteral is ResolveExisting for a path that may hold globs: the
// elements from the first glob on are kept as written.
func resolveLiteral(p string) string {
	i := strings.IndexAny(p, "*?[")
	if i < 0 {
		return ResolveExisting(p)
	}
	j := strings.LastIndexFunc(p[:i], func(r rune) bool { return r < 0x80 && os.IsPathSeparator(uint8(r)) })
	if j < 0 {
		return p
	}
	return filepath.Join(ResolveExisting(p[:j+1]), p[j+1:])
}

// Leasable refuses rel, a workspace-relative path or glob as ArgPath
// returns it, when it names only paths no worker may write (the state
// directory, leasegate.json): a lease there would make nothing writable,
// so acquiring one is an input error (gate.ReasonInputInvalid) naming
// why, not a grant.
func (w *Workspace) Leasable(rel string) error {
	v := w.LocatePattern(rel)
	if !v.Refused() {
		return nil
	}
	return &gate.DeniedError{Reason: gate.ReasonInputInvalid, Message: fmt.Sprintf(
		"%s cannot be leased: %s (no lease makes it writable)", rel, v.Why)}
}
