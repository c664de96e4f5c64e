package main

import (
	"context"
	"flag"
	"strings"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/envname"
)

func cmdEvict(ctx context.Context, args []string) error {
	var f leaseFlags
	fs := flag.NewFlagSet("evict", flag.ContinueOnError)
	f.register(fs)
	fs.StringVar(&f.reason, "reason", "", "why (required; recorded and sent to the owner)")
	// The lease's owner is whoever holds it; --as names the operator.
	fs.Lookup("as").Usage = "the operator's name, for the record (env " + envname.As + "; default: the user running it)"
	pos, err := parseMixed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || strings.TrimSpace(f.reason) == "" {
		return usagef("evict: want one LEASE_ID or PATH and --reason TEXT")
	}
	cl, ws, err := f.client(ctx)
	if err != nil {
		return err
	}
	l, err := findLease(ctx, cl, ws, pos[0], "")
	if err != nil {
		return err
	}
	who := f.as
	if who == "" {
		who = operatorName()
	}
	res, err := cl.Lease(ctx, leasegate.LeaseRequest{Op: gate.OpEvict, Owner: gate.Owner{Name: who}, LeaseID: l.ID, Reason: f.reason, Admin: who})
	if err != nil {
		return err
	}
	if f.jsonOut {
		return printJSON(res)
	}
	printLeaseOp("evict", res)
	return nil
}
