package main

import (
	"context"
	"flag"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

func cmdRenew(ctx context.Context, args []string) error {
	return holderOp(ctx, "renew", gate.OpRenew, args)
}

func cmdRelease(ctx context.Context, args []string) error {
	return holderOp(ctx, "release", gate.OpRelease, args)
}

func cmdCheckin(ctx context.Context, args []string) error {
	return holderOp(ctx, "checkin", gate.OpCheckin, args)
}

func holderOp(ctx context.Context, name string, op gate.Op, args []string) error {
	var f leaseFlags
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	f.register(fs)
	f.registerToken(fs)
	if op == gate.OpRenew {
		fs.DurationVar(&f.ttl, "ttl", gate.DefaultCheckoutTTL, "new duration, counted from now")
	}
	fs.StringVar(&f.reason, "reason", "", "why, for the record")
	pos, err := parseMixed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || f.as == "" {
		return usagef("%s: want one LEASE_ID or PATH and --as NAME", name)
	}
	if f.ttl <= 0 && op == gate.OpRenew {
		return usagef("renew: --ttl %s: want a positive duration (default %s)", f.ttl, gate.DefaultCheckoutTTL)
	}
	cl, ws, err := f.client(ctx)
	if err != nil {
		return err
	}
	l, err := findLease(ctx, cl, ws, pos[0], f.as)
	if err != nil {
		return err
	}
	tok := f.token
	if tok == 0 {
		tok = l.FencingToken
	}
	res, err := cl.Lease(ctx, leasegate.LeaseRequest{Op: op, Owner: gate.Owner{Name: f.as}, LeaseID: l.ID, Token: tok, TTL: f.ttl, Reason: f.reason})
	if err != nil {
		return err
	}
	if f.jsonOut {
		return printJSON(res)
	}
	printLeaseOp(name, res)
	return nil
}
