package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

func cmdHistory(ctx context.Context, args []string) error {
	var f common
	var limit int
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	f.register(fs, false)
	startsNothing(fs)
	fs.IntVar(&limit, "limit", 200, "show at most this many events, newest kept (0 = all)")
	pos, err := parseMixed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("history: want at most one PATH, LEASE_ID or BLOCKER_ID")
	}
	if limit < 0 {
		return usagef("history: --limit %d: want 0 (all) or a positive number", limit)
	}
	cl, ws, err := f.reader(ctx)
	if err != nil || cl == nil {
		return err
	}
	var id gate.LeaseID
	var path string
	if len(pos) == 1 {
		if _, err := cl.GetLease(ctx, gate.LeaseID(pos[0])); err == nil {
			id = gate.LeaseID(pos[0])
		} else if rep, err := cl.Blocker(ctx, pos[0]); err == nil {
			path = rep.Path // a blocker's trail is its file's
		} else if path, err = relArg(ws, pos[0]); err != nil {
			return err
		}
	}
	evs, err := cl.History(ctx, id, path, limit)
	if err != nil {
		return err
	}
	if len(evs) == 0 && path != "" && !exists(ws, path) {
		return &gate.DeniedError{Reason: gate.ReasonNotFound,
			Message: fmt.Sprintf("history: %q is no lease id, blocker id or file of this workspace, and no event names it", pos[0])}
	}
	if f.jsonOut {
		return printJSON(evs)
	}
	printHistory(evs)
	return nil
}

func printHistory(evs []gate.Event) {
	for _, e := range evs {
		fmt.Println(eventLine(e))
	}
}

// exists reports whether the workspace-relative path rel names a file or
// directory (or a dangling link) in the workspace.
func exists(ws *workspace.Workspace, rel string) bool {
	_, err := os.Lstat(filepath.Join(ws.Root, filepath.FromSlash(rel)))
	return err == nil
}
