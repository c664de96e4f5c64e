package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

// relArg makes a command-line path or glob workspace-relative, against
// the current directory (see Workspace.ArgPath). One quoted as a Go
// string, as status and history show a name holding a newline or an
// escape sequence (gate.ShownPath), is taken unquoted, so that any name
// shown can be given back as it was shown.
func relArg(ws *workspace.Workspace, a string) (string, error) {
	return argPath(ws, unquoted(a))
}

// relFileArg is relArg for an argument that names a file, its glob
// characters taken literally (gate.Literal): "app/[id]/page.tsx" is that
// file.
func relFileArg(ws *workspace.Workspace, a string) (string, error) {
	return argPath(ws, gate.Literal(unquoted(a)))
}

// unquoted is a unquoted when it is quoted as a Go string.
func unquoted(a string) string {
	if u, err := strconv.Unquote(a); err == nil && strings.HasPrefix(a, `"`) {
		return u
	}
	return a
}

// argPath is Workspace.ArgPath against the current directory.
func argPath(ws *workspace.Workspace, a string) (string, error) {
	wd := ""
	if !filepath.IsAbs(a) {
		var err error
		if wd, err = os.Getwd(); err != nil {
			return "", err
		}
	}
	return ws.ArgPath(wd, a)
}

// findLease resolves a lease id or a path to a lease; for a path, as
// api.LeaseAt does.
func findLease(ctx context.Context, cl *api.Client, ws *workspace.Workspace, arg, owner string) (gate.Lease, error) {
	if gate.ValidID(arg) == nil && !strings.ContainsAny(arg, "./*") {
		l, err := cl.GetLease(ctx, gate.LeaseID(arg))
		if err == nil || !errors.Is(err, gate.ErrNotFound) {
			return l, err
		}
	}
	rel, err := relArg(ws, arg)
	if err != nil {
		return gate.Lease{}, err
	}
	return api.LeaseAt(ctx, cl, owner, rel)
}
