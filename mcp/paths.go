package mcp

import (
	"fmt"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

// maxPaths bounds the paths of one call: a model lists the files of a
// task, not a tree (a glob covers a tree). One check carries them all.
const maxPaths = leasegate.MaxCheckPaths

// cleanPaths turns a tool's paths or globs into workspace-relative
// patterns: relative to the workspace root, or absolute inside it, by the
// platform's path rules (the workspace's). A ".." segment, in a relative
// or an absolute path, is refused rather than resolved, so that what a
// lease covers is what the model wrote; symlinks are followed
// (Workspace.ArgPath), and a path outside the workspace, absolute or
// through a link, is PATH_OUTSIDE_WORKSPACE.
func cleanPaths(ws *workspace.Workspace, paths []string) ([]string, error) {
	switch {
	case len(paths) == 0:
		return nil, invalid("paths is empty: give at least one workspace-relative path or glob")
	case len(paths) > maxPaths:
		return nil, invalid("%d paths is over the limit of %d: use a glob such as src/**", len(paths), maxPaths)
	}
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		c, err := cleanPath(ws, p)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func cleanPath(ws *workspace.Workspace, p string) (string, error) {
	if workspace.HasDotDot(p) {
		return "", &ToolError{Code: gate.ReasonOutsideWorkspace, Message: fmt.Sprintf(
			"path %q has a \"..\" segment: give paths relative to the workspace root %s without \"..\"", p, ws.Root)}
	}
	// Resolved as the sidecar and the hooks resolve a write's path: a link
	// is the file it names, a path through a link out of the workspace is
	// outside it, and a trailing separator names the directory's tree.
	c, err := ws.ArgPath(ws.Root, p)
	if err != nil {
		return "", fromAPI(err)
	}
	return c, nil
}

// checkID refuses a lease or blocker id that cannot be one.
func checkID(what, id string) error {
	if err := gate.ValidID(id); err != nil {
		return invalid("%s: %v", what, err)
	}
	return nil
}
