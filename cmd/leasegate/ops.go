package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/envname"
	"github.com/leasegate/leasegate/workspace"
)

func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func cmdStatus(ctx context.Context, args []string) error {
	var f common
	var all bool
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	f.register(fs, false)
	fs.BoolVar(&all, "all", false, fmt.Sprintf("list every lease (without it, at most %d of each owner)", statusLeasesPerOwner))
	if _, err := parseMixed(fs, args); err != nil {
		return err
	}
	cl, ws, err := f.reader(ctx)
	if err != nil || cl == nil {
		return err
	}
	s, err := cl.Status(ctx)
	if err != nil {
		return err
	}
	h, err := cl.Health(ctx)
	if err != nil {
		return err
	}
	rule := describeRule(ws)
	if f.jsonOut {
		return printJSON(statusJSON(s, h, ws, rule))
	}
	printStatus(os.Stdout, s, h, ws, rule, all)
	return nil
}

func describeRule(ws *workspace.Workspace) string {
	r, err := workspace.NewRule(ws, nil)
	if err != nil {
		return "gating rule unavailable: " + err.Error()
	}
	defer r.Close()
	return r.Describe()
}

func cmdBlockers(ctx context.Context, args []string) error {
	var f common
	var all, md bool
	fs := flag.NewFlagSet("blockers", flag.ContinueOnError)
	f.register(fs, false)
	fs.BoolVar(&all, "all", false, "include resolved blockers")
	fs.BoolVar(&md, "markdown", false, "print each report in full (Markdown)")
	pos, err := parseMixed(fs, args)
	if err != nil {
		return err
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

func cmdResolve(ctx context.Context, args []string) error {
	var f common
	var retry, deny, abort bool
	var by, note string
	fs := flag.NewFlagSet("resolve", flag.ContinueOnError)
	f.register(fs, false)
	fs.BoolVar(&retry, "retry", false, "decide again: the held write proceeds if the path is free now")
	fs.BoolVar(&deny, "deny", false, "fail the held write with EBUSY and let the worker continue")
	fs.BoolVar(&abort, "abort", false, "end the blocked worker")
	fs.StringVar(&by, "by", os.Getenv("USER"), "who resolves, for the record")
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
	if f.jsonOut {
		return printJSON(res)
	}
	what := "blocker"
	if res.Contention != nil {
		what = "contention"
	}
	fmt.Printf("%s %s: %s\n", what, pos[0], res.Message)
	if res.Outcome == leasegate.Blocked || res.Outcome == leasegate.Contended {
		return fmt.Errorf("%w: %s", errBlocked, res.Message)
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

// leaseFlags are shared by acquire, renew, release, checkin and evict.
type leaseFlags struct {
	common
	as     string
	token  uint64
	ttl    time.Duration
	scope  string
	reason string
}

func (f *leaseFlags) register(fs *flag.FlagSet) {
	f.common.register(fs, false)
	fs.StringVar(&f.as, "as", os.Getenv(envname.As), "owner name (env "+envname.As+")")
	fs.Uint64Var(&f.token, "token", 0, "the lease's fencing token (default: looked up; a lease re-granted since will not match)")
}

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
	res, err := cl.Lease(ctx, leasegate.LeaseRequest{Op: gate.OpAcquire, Owner: gate.Owner{Name: f.as}, Scope: scope, TTL: f.ttl})
	verb := "acquired"
	if held, ok := alreadyHeld(err, f.as, scope); ok {
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

// alreadyHeld reports whether an acquire was refused only because owner
// already holds a check-out of exactly that scope: acquiring it again is
// not an error, and leaves the lease as it is.
func alreadyHeld(err error, owner string, scope gate.Scope) (gate.Lease, bool) {
	var de *gate.DeniedError
	if !errors.As(err, &de) || de.Reason != gate.ReasonScopeOverlap || de.Holder == nil {
		return gate.Lease{}, false
	}
	h := *de.Holder
	if !h.HeldBy(owner) || h.Kind != gate.KindCheckout || h.Scope.Type != scope.Type || !sameSet(h.Scope.Paths, scope.Paths) {
		return gate.Lease{}, false
	}
	return h, true
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// scopeOf turns command-line paths into a scope, each relative to the
// current directory and checked to lie inside the workspace.
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
	glob := false
	for _, a := range args {
		rel, err := relArg(ws, a)
		if err != nil {
			return gate.Scope{}, err
		}
		glob = glob || gate.IsGlob(rel)
		s.Paths = append(s.Paths, rel)
	}
	if s.Type == "" {
		s.Type = gate.ScopeFile
		if glob {
			s.Type = gate.ScopeSparse
		}
	}
	return s, nil
}

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
	switch len(mine) {
	case 0:
		return gate.Lease{}, &gate.DeniedError{Reason: gate.ReasonNotFound, Message: fmt.Sprintf("no active lease%s covers %s", ownerSuffix(owner), rel)}
	case 1:
		return mine[0], nil
	}
	return gate.Lease{}, usagef("%d leases%s cover %s; give a lease id", len(mine), ownerSuffix(owner), rel)
}

func ownerSuffix(owner string) string {
	if owner == "" {
		return ""
	}
	return " of " + owner
}

func cmdEvict(ctx context.Context, args []string) error {
	var f leaseFlags
	fs := flag.NewFlagSet("evict", flag.ContinueOnError)
	f.register(fs)
	fs.StringVar(&f.reason, "reason", "", "why (required; recorded and sent to the owner)")
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
		who = envOr("USER", "admin")
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

func cmdHistory(ctx context.Context, args []string) error {
	var f common
	var limit int
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	f.register(fs, false)
	fs.IntVar(&limit, "limit", 200, "show at most this many events, newest kept (0 = all)")
	pos, err := parseMixed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("history: want at most one PATH, LEASE_ID or BLOCKER_ID")
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
	if f.jsonOut {
		return printJSON(evs)
	}
	printHistory(evs)
	return nil
}

func cmdStop(ctx context.Context, args []string) error {
	var f leaseFlags
	fs := flag.NewFlagSet("stop", flag.ContinueOnError)
	f.register(fs)
	if _, err := parseMixed(fs, args); err != nil {
		return err
	}
	if f.as == "" {
		return usagef("stop: --as NAME is required")
	}
	cl, _, err := f.client(ctx)
	if err != nil {
		return err
	}
	at, err := cl.Stop(ctx, f.as, "leasegate stop")
	if err != nil {
		return err
	}
	if f.jsonOut {
		return printJSON(api.StopResponse{ReleaseAt: at})
	}
	fmt.Printf("%s stopped: its leases are released at %s unless it mutates again before then\n", f.as, at.UTC().Format(time.RFC3339))
	return nil
}
