package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
)

func cmdResolve(ctx context.Context, args []string) error {
	var f common
	var retry, deny, abort bool
	var by, note string
	fs := flag.NewFlagSet("resolve", flag.ContinueOnError)
	f.register(fs, false)
	fs.BoolVar(&retry, "retry", false, "decide again: the held write proceeds if the path is free now")
	fs.BoolVar(&deny, "deny", false, "fail the held write with EBUSY and let the worker continue")
	fs.BoolVar(&abort, "abort", false, "end the blocked worker")
	fs.StringVar(&by, "by", operatorName(), "who resolves, for the record")
	fs.StringVar(&note, "note", "", "a note for the record")
	pos, err := parseMixed(fs, args)
	if err != nil {
		return err
	}
	action, err := oneAction(retry, deny, abort)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("resolve: want one BLOCKER_ID (or CONTENTION_ID) and one of --retry, --deny, --abort")
	}
	cl, _, err := f.client(ctx)
	if err != nil {
		return err
	}
	res, err := cl.Resolve(ctx, pos[0], action, by, note)
	if err != nil {
		return err
	}
	return printResolved(pos[0], res, f.jsonOut)
}

// printResolved says what came of a resolution: on stdout, the JSON
// answer or one line; a write still held (a retry that found the path
// held) is exit 4 under --json too, and said once, on stderr.
func printResolved(id string, res leasegate.ResolveResult, jsonOut bool) error {
	held := res.Outcome == leasegate.Blocked || res.Outcome == leasegate.Contended
	if jsonOut {
		if err := printJSON(res); err != nil {
			return err
		}
	}
	what := "blocker"
	if res.Contention != nil {
		what = "contention"
	}
	switch {
	case held:
		return fmt.Errorf("%w: %s %s: %s", errBlocked, what, id, res.Message)
	case !jsonOut:
		fmt.Printf("%s %s: %s\n", what, id, res.Message)
	}
	return nil
}

func oneAction(retry, deny, abort bool) (blocker.Action, error) {
	n := 0
	var a blocker.Action
	if retry {
		n, a = n+1, blocker.ActionRetry
	}
	if deny {
		n, a = n+1, blocker.ActionDeny
	}
	if abort {
		n, a = n+1, blocker.ActionAbort
	}
	if n != 1 {
		return "", usagef("resolve: give exactly one of --retry, --deny, --abort")
	}
	return a, nil
}
