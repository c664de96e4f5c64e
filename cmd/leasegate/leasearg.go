package main

import (
	"context"
	"errors"
	"fmt"
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

// findLease resolves a lease id or a path to a lease; for a path, the
// active lease of owner covering it (or the only one when owner is empty).
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
	ls, err := cl.Leases(ctx, rel)
	if err != nil {
		return gate.Lease{}, err
	}
	var mine []gate.Lease
	for _, l := range ls {
		if owner == "" || l.Owner.Name == owner {
			mine = append(mine, l)
		}
	}
	switch {
	case len(mine) == 0 && len(ls) > 0:
		// Held, by someone else: the wrong owner, as for a lease id.
		return gate.Lease{}, &gate.DeniedError{Reason: gate.ReasonOwnerMismatch,
			Message: fmt.Sprintf("no active lease%s covers %s: it is held by %s", ownerSuffix(owner), rel, holders(ls))}
	case len(mine) == 0:
		return gate.Lease{}, &gate.DeniedError{Reason: gate.ReasonNotFound, Message: fmt.Sprintf("no active lease%s covers %s", ownerSuffix(owner), rel)}
	case len(mine) == 1:
		return mine[0], nil
	}
	return gate.Lease{}, usagef("%d leases%s cover %s; give a lease id", len(mine), ownerSuffix(owner), rel)
}

// holders names the owners of leases and their ids: "alice (lease 01J...)".
func holders(ls []gate.Lease) string {
	names := make([]string, len(ls))
	for i, l := range ls {
		names[i] = fmt.Sprintf("%s (lease %s)", l.Owner.Name, l.ID)
	}
	return strings.Join(names, ", ")
}

func ownerSuffix(owner string) string {
	if owner == "" {
		return ""
	}
	return " of " + owner
}
