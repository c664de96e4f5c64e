package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

func cmdAcquire(ctx context.Context, args []string) error {
	var f leaseFlags
	fs := flag.NewFlagSet("acquire", flag.ContinueOnError)
	f.register(fs)
	fs.DurationVar(&f.ttl, "ttl", gate.DefaultCheckoutTTL, "lease duration: no auto-renewal, no grace period")
	fs.StringVar(&f.scope, "scope", "", "file, sparse or full (default: sparse, or file when no argument is a glob)")
	pos, err := parseMixed(fs, args)
	if err != nil {
		return err
	}
	if f.as == "" {
		return usagef("acquire: --as NAME is required (who holds the lease)")
	}
	if f.ttl <= 0 {
		return usagef("acquire: --ttl %s: want a positive duration (default %s)", f.ttl, gate.DefaultCheckoutTTL)
	}
	cl, ws, err := f.client(ctx)
	if err != nil {
		return err
	}
	scope, err := scopeOf(ws, f.scope, pos)
	if err != nil {
		return err
	}
	scope.Files = ws.Files(scope.Paths) // the lease covers these files under every name
	pairs, _ := ws.Config.PairRules()   // each rule compiled when the config was loaded: no error here
	res, err := cl.Lease(ctx, leasegate.LeaseRequest{Op: gate.OpAcquire, Owner: gate.Owner{Name: f.as}, Scope: scope, TTL: f.ttl})
	verb := "acquired"
	if held, ok := ws.Folding().AlreadyHeld(err, f.as, scope, pairs); ok {
		res, err, verb = leasegate.LeaseResult{Decision: gate.Decision{Granted: true, Reason: gate.ReasonOK, Lease: &held}, Leases: []gate.Lease{held}}, nil, "already held"
	}
	if err != nil {
		return err
	}
	if f.jsonOut {
		return printJSON(res)
	}
	for _, l := range res.Leases {
		fmt.Printf("%s %s for %s: %s, token %d, expires %s (in %s)\n", verb, l.ID, l.Owner.Name, scopeString(l.Scope),
			l.FencingToken, l.ExpiresAt.UTC().Format(time.RFC3339), l.ExpiresAt.Sub(time.Now()).Round(time.Second))
	}
	return nil
}

// scopeOf turns command-line paths into a scope, each relative to the
// current directory and checked to lie inside the workspace; without
// --scope it is the one gate.ScopeTypeOf gives the paths. With --scope
// file each is a file's name, its glob characters taken literally.
func scopeOf(ws *workspace.Workspace, kind string, args []string) (gate.Scope, error) {
	if kind == "full" {
		if len(args) > 0 {
			return gate.Scope{}, usagef("acquire: --scope full takes no paths")
		}
		return gate.Scope{Type: gate.ScopeFull}, nil
	}
	if len(args) == 0 {
		return gate.Scope{}, usagef("acquire: give PATH or GLOB arguments, or --scope full")
	}
	s := gate.Scope{Type: gate.ScopeType(kind)}
	toRel := relArg
	if s.Type == gate.ScopeFile {
		toRel = relFileArg // a file scope names files: "[id]" is that file
	}
	for _, a := range args {
		rel, err := toRel(ws, a)
		if err == nil {
			err = ws.Leasable(rel)
		}
		if err != nil {
			return gate.Scope{}, err
		}
		s.Paths = append(s.Paths, rel)
	}
	if s.Type == "" {
		s.Type = gate.ScopeTypeOf(s.Paths)
	}
	return s, nil
}
