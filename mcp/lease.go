package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
)

// AcquireInput is the input of lease_acquire.
type AcquireInput struct {
	Paths []string `json:"paths,omitempty" jsonschema:"files, folders (ending in /) or globs to check out, relative to the workspace root (a backslash makes a glob character literal: app/\\[id]/page.tsx); empty with scope full"`
	Scope string   `json:"scope,omitempty" jsonschema:"file (each path a file's name, its glob characters literal), sparse (globs) or full (the whole workspace); default file, or sparse when a path is a glob or folder"`
	TTL   string   `json:"ttl,omitempty" jsonschema:"how long the check-out lasts, e.g. 2h (1m to 720h, default 72h); no auto-renewal"`
	Note  string   `json:"note,omitempty" jsonschema:"why, for the record (what you are working on)"`
}

// LeaseRefInput names a lease of mine by id or by a path it covers.
type LeaseRefInput struct {
	Lease string `json:"lease" jsonschema:"a lease id, or a path one of my check-out leases covers"`
	Note  string `json:"note,omitempty" jsonschema:"why, for the record"`
}

// RenewInput is the input of lease_renew.
type RenewInput struct {
	Lease string `json:"lease" jsonschema:"a lease id, or a path one of my check-out leases covers"`
	TTL   string `json:"ttl,omitempty" jsonschema:"new duration counted from now, e.g. 2h (1m to 720h, default 72h)"`
}

// LeaseOutput is the answer of the lease tools.
type LeaseOutput struct {
	Me     string    `json:"me"`
	Done   string    `json:"done" jsonschema:"acquired, already held, renewed, released or checked in"`
	Leases []Holding `json:"leases"`
}

// maxNote bounds a note, like the reasons the CLI records.
const maxNote = 1024

func (s *Server) addLeases() {
	sdk.AddTool(s.srv, &sdk.Tool{Name: "lease_acquire", Annotations: &sdk.ToolAnnotations{Title: "Check out files"},
		Description: "Check out files, a folder or globs for yourself before working on them (a lease that lasts its TTL): " +
			"other owners' writes to them wait and then halt. Refused with LEASE_HELD_BY_OTHER, naming the holder, when another owner holds any of them."},
		s.acquire)
	sdk.AddTool(s.srv, &sdk.Tool{Name: "lease_renew", Annotations: &sdk.ToolAnnotations{Title: "Renew a check-out", IdempotentHint: true},
		Description: "Extend one of my check-out leases: its new TTL counts from now."}, s.renew)
	sdk.AddTool(s.srv, &sdk.Tool{Name: "lease_release", Annotations: &sdk.ToolAnnotations{Title: "Release a lease"},
		Description: "Give up one of my leases without completing the work, so that others may write its files."}, s.release)
	sdk.AddTool(s.srv, &sdk.Tool{Name: "lease_checkin", Annotations: &sdk.ToolAnnotations{Title: "Check in a lease"},
		Description: "Complete one of my check-out leases: the work on its files is done (validated and recorded)."}, s.checkin)
}

func (s *Server) acquire(ctx context.Context, _ *sdk.CallToolRequest, in AcquireInput) (*sdk.CallToolResult, LeaseOutput, error) {
	scope, ttl, err := s.acquireArgs(in)
	if err != nil {
		return nil, LeaseOutput{}, err
	}
	cl, err := s.conn.get(ctx)
	if err != nil {
		return nil, LeaseOutput{}, err
	}
	me, err := s.id.who(ctx, cl, true)
	if err != nil {
		return nil, LeaseOutput{}, s.conn.check(cl, err)
	}
	scope.Files = s.ws.Files(scope.Paths) // the lease covers these files under every name
	res, err := cl.Lease(ctx, leasegate.LeaseRequest{Op: gate.OpAcquire, Owner: gate.Owner{Name: me}, Scope: scope, TTL: ttl, Reason: in.Note})
	done := "acquired"
	pairs, _ := s.ws.Config.PairRules() // each rule compiled when the config was loaded: no error here
	if held, ok := s.ws.Folding().AlreadyHeld(err, me, scope, pairs); ok {
		res, err, done = leasegate.LeaseResult{Leases: []gate.Lease{held}}, nil, "already held"
	}
	if err != nil {
		return nil, LeaseOutput{}, s.conn.check(cl, err)
	}
	return s.leaseAnswer(me, done, res.Leases)
}

func (s *Server) acquireArgs(in AcquireInput) (gate.Scope, time.Duration, error) {
	ttl, err := ttlOf(in.TTL)
	if err != nil || len(in.Note) > maxNote {
		return gate.Scope{}, 0, cmp(err, invalid("note of %d bytes is over the %d byte limit", len(in.Note), maxNote))
	}
	switch in.Scope {
	case "full":
		if len(in.Paths) > 0 {
			return gate.Scope{}, 0, invalid("scope full takes no paths: it is the whole workspace")
		}
		return gate.Scope{Type: gate.ScopeFull}, ttl, nil
	case "", "file", "sparse":
	default:
		return gate.Scope{}, 0, invalid("scope %q: want file, sparse or full", in.Scope)
	}
	asked := in.Paths
	if in.Scope == "file" {
		// A file scope names files: "app/[id]/page.tsx" is that one file.
		asked = make([]string, len(in.Paths))
		for i, p := range in.Paths {
			asked[i] = gate.Literal(p)
		}
	}
	paths, err := cleanPaths(s.ws, asked)
	if err != nil {
		return gate.Scope{}, 0, err
	}
	for _, p := range paths {
		if err := s.ws.Leasable(p); err != nil {
			return gate.Scope{}, 0, fromAPI(err)
		}
	}
	sc := gate.Scope{Type: gate.ScopeType(in.Scope), Paths: paths}
	if sc.Type == "" {
		sc.Type = gate.ScopeTypeOf(paths)
	}
	return sc, ttl, nil
}

// cmp returns the first non-nil error.
func cmp(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// ttlOf parses a TTL and checks it against the check-out bounds, so that
// nothing is sent for one out of bounds.
func ttlOf(s string) (time.Duration, error) {
	if s == "" {
		return gate.DefaultCheckoutTTL, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, invalid("ttl %q: want a duration such as 90m or 2h", s)
	}
	if d < gate.MinCheckoutTTL || d > gate.MaxCheckoutTTL {
		return 0, &ToolError{Code: gate.ReasonTTLOutOfBounds, Message: fmt.Sprintf("ttl %s is out of bounds: want %s to %s", d, gate.MinCheckoutTTL, gate.MaxCheckoutTTL)}
	}
	return d, nil
}

func (s *Server) renew(ctx context.Context, _ *sdk.CallToolRequest, in RenewInput) (*sdk.CallToolResult, LeaseOutput, error) {
	ttl, err := ttlOf(in.TTL)
	if err != nil {
		return nil, LeaseOutput{}, err
	}
	return s.holderOp(ctx, gate.OpRenew, "renewed", LeaseRefInput{Lease: in.Lease}, ttl)
}

func (s *Server) release(ctx context.Context, _ *sdk.CallToolRequest, in LeaseRefInput) (*sdk.CallToolResult, LeaseOutput, error) {
	return s.holderOp(ctx, gate.OpRelease, "released", in, 0)
}

func (s *Server) checkin(ctx context.Context, _ *sdk.CallToolRequest, in LeaseRefInput) (*sdk.CallToolResult, LeaseOutput, error) {
	return s.holderOp(ctx, gate.OpCheckin, "checked in", in, 0)
}

// holderOp carries out an operation of a lease's holder on the lease in
// names.
func (s *Server) holderOp(ctx context.Context, op gate.Op, done string, in LeaseRefInput, ttl time.Duration) (*sdk.CallToolResult, LeaseOutput, error) {
	if len(in.Note) > maxNote {
		return nil, LeaseOutput{}, invalid("note of %d bytes is over the %d byte limit", len(in.Note), maxNote)
	}
	ref, err := s.leaseRef(in.Lease)
	if err != nil {
		return nil, LeaseOutput{}, err
	}
	cl, err := s.conn.get(ctx)
	if err != nil {
		return nil, LeaseOutput{}, err
	}
	me, err := s.id.who(ctx, cl, false)
	if err != nil {
		return nil, LeaseOutput{}, s.conn.check(cl, err)
	}
	if me == "" {
		return nil, LeaseOutput{}, &ToolError{Code: gate.ReasonNotFound, Message: "I hold no lease yet: there is nothing to " + string(op)}
	}
	l, err := findLease(ctx, cl, ref, me)
	if err != nil {
		return nil, LeaseOutput{}, s.conn.check(cl, err)
	}
	res, err := cl.Lease(ctx, leasegate.LeaseRequest{Op: op, Owner: gate.Owner{Name: me}, LeaseID: l.ID, Token: l.FencingToken, TTL: ttl, Reason: in.Note})
	if err != nil {
		return nil, LeaseOutput{}, s.conn.check(cl, err)
	}
	return s.leaseAnswer(me, done, res.Leases)
}

// leaseRef is a lease id, or a workspace-relative path.
type leaseRef struct {
	id   gate.LeaseID
	path string
}

// leaseRef parses a lease tool's "lease": an id has no "/", "." or glob
// character; anything else is a path.
func (s *Server) leaseRef(arg string) (leaseRef, error) {
	if arg == "" {
		return leaseRef{}, invalid("lease is empty: give a lease id or a path")
	}
	if !strings.ContainsAny(arg, "./*?[") {
		return leaseRef{id: gate.LeaseID(arg)}, checkID("lease", arg)
	}
	p, err := cleanPath(s.ws, arg)
	return leaseRef{path: p}, err
}

// findLease resolves a reference to the lease: by id, or by the path as
// api.LeaseAt does.
func findLease(ctx context.Context, cl Coordinator, ref leaseRef, owner string) (gate.Lease, error) {
	if ref.id != "" {
		return cl.GetLease(ctx, ref.id)
	}
	return api.LeaseAt(ctx, cl, owner, ref.path)
}

func (s *Server) leaseAnswer(me, done string, ls []gate.Lease) (*sdk.CallToolResult, LeaseOutput, error) {
	out := LeaseOutput{Me: me, Done: done, Leases: make([]Holding, 0, len(ls))}
	now := time.Now()
	var b strings.Builder
	for _, l := range ls {
		h := holding(l, me, now, nil)
		h.Liveness = "" // the caller's own: it is here asking
		out.Leases = append(out.Leases, h)
		fmt.Fprintf(&b, "%s %s lease %s on %s for %s", done, h.Kind, h.LeaseID, scopeText(h), me)
		if h.ExpiresAt != "" && l.State == gate.StateActive {
			fmt.Fprintf(&b, ", expires %s (in %s)", h.ExpiresAt, h.ExpiresIn)
		}
		b.WriteString("\n")
	}
	return textResult(b.String()), out, nil
}
