package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

func cmdBlockers(ctx context.Context, args []string) error {
	var f common
	var all, md bool
	fs := flag.NewFlagSet("blockers", flag.ContinueOnError)
	f.register(fs, false)
	startsNothing(fs)
	fs.BoolVar(&all, "all", false, "include resolved blockers")
	fs.BoolVar(&md, "markdown", false, "print each report in full (Markdown)")
	pos, err := parseMixed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("blockers: want at most one BLOCKER_ID, got %d arguments", len(pos))
	}
	if all && len(pos) == 1 {
		return usagef("blockers: --all lists the resolved blockers too; a BLOCKER_ID's report is shown whatever its state, so give one or the other")
	}
	if md && f.jsonOut {
		return usagef("blockers: --markdown and --json are two forms of the output; give one")
	}
	cl, _, err := f.reader(ctx)
	if err != nil || cl == nil {
		return err
	}
	var reps []blocker.Report
	if len(pos) == 1 {
		r, err := cl.Blocker(ctx, pos[0])
		if err != nil {
			return err
		}
		reps, md = []blocker.Report{r}, true
	} else if reps, err = cl.Blockers(ctx, all); err != nil {
		return err
	}
	if f.jsonOut {
		return printJSON(reps)
	}
	printBlockers(reps, md)
	return nil
}

func printBlockers(reps []blocker.Report, full bool) {
	if len(reps) == 0 {
		fmt.Println("no blockers")
		return
	}
	for _, r := range reps {
		if full {
			fmt.Println(r.Markdown())
			continue
		}
		fmt.Printf("%s  %-8s %s cannot write %s (held by %s since %s)\n", r.ID, r.Status, r.Requester.Name, gate.ShownPath(r.Path),
			r.Holder.Owner.Name, r.Holder.AcquiredAt.UTC().Format(time.RFC3339))
		if now := r.HolderNow.Phrase(); now != "" && r.Status == blocker.StatusOpen {
			fmt.Printf("    holder %s: %s\n", r.Holder.Owner.Name, now)
		}
		if note := r.FreeNote(); note != "" {
			fmt.Printf("    now %s\n", note)
		}
		if note := r.GitLockNote(); note != "" {
			fmt.Printf("    %s\n", note)
		}
	}
	if !full {
		// The list says what is blocked; how to resolve each is in its
		// report, which the operator should read before acting.
		fmt.Println("\n`leasegate blockers ID` shows a report in full, with the commands that resolve it")
	}
}
