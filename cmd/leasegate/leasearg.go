package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

// relArg makes a command-line path or glob workspace-relative, against
// the current directory (see Workspace.ArgPath).
func relArg(ws *workspace.Workspace, a string) (string, error) {
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
