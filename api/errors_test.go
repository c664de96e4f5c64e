package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
)

// fixture is the state the error table works on.
type fixture struct {
	docs    gate.Lease // carol's check-out of docs/**
	evicted gate.Lease // evicted by root
	done    gate.Lease // released by its holder
	expired gate.Lease // its TTL ran out (the clock jumped past it)
}

func newFixture(t *testing.T, s *testServer) fixture {
	t.Helper()
	ctx := context.Background()
	s.mutate(t, "alice", "held.txt")
	f := fixture{docs: s.checkout(t, "carol", 0, "docs/**"), evicted: s.checkout(t, "carol", 0, "evict/**"),
		done: s.checkout(t, "carol", 0, "done/**"), expired: s.checkout(t, "carol", time.Minute, "exp/**")}
	evict := leasegate.LeaseRequest{Op: gate.OpEvict, Owner: gate.Owner{Name: "ops"}, LeaseID: f.evicted.ID, Reason: "stale", Admin: "root"}
	if _, err := s.client.Lease(ctx, evict); err != nil {
		t.Fatalf("evict = %v", err)
	}
	if _, err := s.client.Lease(ctx, holderOp(gate.OpRelease, f.done, "carol", 0)); err != nil {
		t.Fatalf("release = %v", err)
	}
	s.clock.jump(2 * time.Minute)
	return f
}

func holderOp(op gate.Op, l gate.Lease, owner string, tokenDelta uint64) leasegate.LeaseRequest {
	return leasegate.LeaseRequest{Op: op, Owner: gate.Owner{Name: owner}, LeaseID: l.ID, Token: l.FencingToken + tokenDelta}
}

// TestErrorCodesRoundTrip: every denial crosses the socket with its code,
// its HTTP status from the one table, and the holder, over plain HTTP and
// over the stream alike; the client's error matches the gate sentinel
// with errors.Is and is a *gate.DeniedError for errors.As.
func TestErrorCodesRoundTrip(t *testing.T) {
	s := serve(t)
	f := newFixture(t, s)
	for _, tr := range []struct {
		name     string
		noStream bool
	}{{"http", true}, {"stream", false}} {
		t.Run(tr.name, func(t *testing.T) {
			errorCodesOver(t, f, newClient(t, api.ClientConfig{Socket: s.sock, NoStream: tr.noStream}))
		})
	}
	if !s.holds(t, "carol", "docs/x.md") {
		t.Fatal("carol lost docs/** to a refused call")
	}
}

func errorCodesOver(t *testing.T, f fixture, cl *api.Client) {
	ctx := context.Background()
	lease := func(req leasegate.LeaseRequest) func() error {
		return func() error { _, err := cl.Lease(ctx, req); return err }
	}
	mutate := func(owner string, paths ...string) func() error {
		return func() error {
			_, err := cl.Mutate(ctx, leasegate.MutateRequest{Owner: owner, Op: "write", Paths: paths})
			return err
		}
	}
	acquire := func(owner string, ttl time.Duration, paths ...string) func() error {
		return lease(leasegate.LeaseRequest{Op: gate.OpAcquire, Owner: gate.Owner{Name: owner}, TTL: ttl,
			Scope: gate.Scope{Type: gate.ScopeSparse, Paths: paths}})
	}
	tests := []struct {
		name       string
		call       func() error
		is         error
		code       gate.Reason
		status     int
		holder     string
		msgContain string
	}{
		{name: "held by other", call: acquire("dave", 0, "held.txt"), is: gate.ErrHeldByOther, code: gate.ReasonHeldByOther, status: http.StatusConflict, holder: "alice"},
		{name: "scope overlap", call: acquire("carol", 0, "docs/api/**"), is: gate.ErrScopeOverlap, code: gate.ReasonScopeOverlap, status: http.StatusConflict, holder: "carol"},
		{name: "token invalid", call: lease(holderOp(gate.OpRelease, f.docs, "carol", 1)), is: gate.ErrTokenInvalid, code: gate.ReasonTokenInvalid, status: http.StatusForbidden},
		{name: "owner mismatch", call: lease(holderOp(gate.OpRelease, f.docs, "bob", 0)), is: gate.ErrOwnerMismatch, code: gate.ReasonOwnerMismatch, status: http.StatusForbidden},
		{name: "ttl out of bounds", call: acquire("dave", time.Second, "ttl/**"), is: gate.ErrTTLOutOfBounds, code: gate.ReasonTTLOutOfBounds, status: http.StatusBadRequest},
		{name: "lease not found", call: func() error { _, err := cl.GetLease(ctx, "01J00000000000000000000000"); return err }, is: gate.ErrNotFound, code: gate.ReasonNotFound, status: http.StatusNotFound},
		{name: "heartbeat of an unknown owner", call: func() error { _, err := cl.Heartbeat(ctx, "mallory"); return err }, is: gate.ErrNotFound, code: gate.ReasonNotFound, status: http.StatusNotFound},
		{name: "owner not found", call: mutate("mallory", "a.txt"), is: gate.ErrNotFound, code: gate.ReasonNotFound, status: http.StatusNotFound},
		{name: "expired", call: lease(holderOp(gate.OpCheckin, f.expired, "carol", 0)), is: gate.ErrExpired, code: gate.ReasonExpired, status: http.StatusGone},
		{name: "evicted", call: lease(holderOp(gate.OpCheckin, f.evicted, "carol", 0)), is: gate.ErrEvicted, code: gate.ReasonEvicted, status: http.StatusGone, msgContain: "stale"},
		{name: "terminal", call: lease(holderOp(gate.OpRelease, f.done, "carol", 0)), is: gate.ErrTerminal, code: gate.ReasonTerminal, status: http.StatusGone},
		{name: "input invalid", call: mutate("alice"), is: gate.ErrInputInvalid, code: gate.ReasonInputInvalid, status: http.StatusBadRequest},
		{name: "outside workspace", call: mutate("alice", "../outside.txt"), is: gate.ErrOutside, code: gate.ReasonOutsideWorkspace, status: http.StatusBadRequest},
		{name: "budget exceeded", call: mutate("alice", manyPaths(gate.MaxPaths+1, 8)...), is: gate.ErrBudget, code: gate.ReasonBudgetExceeded, status: http.StatusRequestEntityTooLarge},
		{name: "body too large", call: mutate("alice", manyPaths(300, 4000)...), code: api.CodeTooLarge, status: http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkAPIError(t, tt.call(), tt.is, tt.code, tt.status, tt.holder, tt.msgContain)
		})
	}
}

// checkAPIError checks one error answer as the client returns it.
func checkAPIError(t *testing.T, err error, is error, code gate.Reason, status int, holder, msgContain string) {
	t.Helper()
	var ae *api.APIError
	if !errors.As(err, &ae) || ae.Status != status || ae.Body.Error.Code != code {
		t.Fatalf("error %v, want an *api.APIError %d %s", err, status, code)
	}
	var de *gate.DeniedError
	if !errors.As(err, &de) || de.Reason != code || !strings.Contains(de.Message, msgContain) {
		t.Fatalf("errors.As(%v, *gate.DeniedError) = %+v, want reason %s", err, de, code)
	}
	if is != nil && !errors.Is(err, is) {
		t.Fatalf("errors.Is(%v, %v) = false", err, is)
	}
	if isUnavailable(err) {
		t.Fatalf("a denial %v is reported as ErrUnavailable", err)
	}
	if holder != "" && (de.Holder == nil || de.Holder.Owner.Name != holder) {
		t.Fatalf("denial holder %+v, want %s", de.Holder, holder)
	}
}

// manyPaths returns n distinct paths of about length chars each.
func manyPaths(n, length int) []string {
	out := make([]string, n)
	for i := range out {
		p := fmt.Sprintf("p%d/", i)
		out[i] = p + strings.Repeat("x", max(1, length-len(p)))
	}
	return out
}

// TestBlockerNotOpenRoundTrips: resolving a resolved blocker is a 409
// BLOCKER_NOT_OPEN that the client matches with blocker.ErrNotOpen.
func TestBlockerNotOpenRoundTrips(t *testing.T) {
	s := serve(t, func(c *coordinator.Config) { c.Windows.Retry.After = 100 * time.Millisecond })
	ctx := context.Background()
	s.mutate(t, "alice", "held.txt")
	r := s.mutate(t, "bob", "held.txt")
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err := s.client.WaitContention(wctx, r.Contention.ID)
	if err != nil || res.Outcome != leasegate.Blocked {
		t.Fatalf("WaitContention = %s, %v; want blocked", res.Outcome, err)
	}
	id := res.Blocker.ID
	if _, err := s.client.Resolve(ctx, id, blocker.ActionDeny, "", ""); err != nil {
		t.Fatalf("Resolve(deny) = %v", err)
	}
	_, err = s.client.Resolve(ctx, id, blocker.ActionDeny, "", "")
	checkAPIError(t, err, nil, api.CodeNotOpen, http.StatusConflict, "", "")
	if !errors.Is(err, blocker.ErrNotOpen) {
		t.Fatalf("errors.Is(%v, blocker.ErrNotOpen) = false", err)
	}
	_, err = s.client.Resolve(ctx, "01J00000000000000000000000", blocker.ActionDeny, "", "")
	checkAPIError(t, err, gate.ErrNotFound, gate.ReasonNotFound, http.StatusNotFound, "", "")
}

// TestServerFailuresAreUnavailable: answers the server gives for its own
// failures (500 internal, 503 when the ledger failed) reach the client as
// ErrUnavailable, never as a result.
func TestServerFailuresAreUnavailable(t *testing.T) {
	s := serve(t)
	raw := rawClient(t, s.sock)
	resp, err := raw.Post("http://x/v1/owners/alice/committed", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	var body api.ErrorBody
	_ = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError || body.Error.Code != api.CodeInternal {
		t.Fatalf("commit release without a workspace: %d %s, want 500 %s", resp.StatusCode, body.Error.Code, api.CodeInternal)
	}
	if _, err := s.client.ReleaseCommitted(context.Background(), "alice"); !isUnavailable(err) {
		t.Fatalf("ReleaseCommitted() on a 500 = %v, want ErrUnavailable", err)
	}
}

// TestAdminFieldIsNotTrusted: a request body cannot name an admin; only
// the token header can.
func TestAdminFieldIsNotTrusted(t *testing.T) {
	s := serve(t)
	l := s.checkout(t, "carol", 0, "docs/**")
	raw := rawClient(t, s.sock)
	body := fmt.Sprintf(`{"op":"evict","owner":{"name":"ops"},"lease_id":%q,"reason":"x","admin":"root"}`, l.ID)
	resp, err := raw.Post("http://x/v1/leases", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		t.Fatalf("eviction with an admin field in the body answered 200")
	}
	if got, err := s.client.GetLease(context.Background(), l.ID); err != nil || got.State != gate.StateActive {
		t.Fatalf("lease after a forged eviction: %s, %v; want active", got.State, err)
	}
}
