package mcp_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/mcp"
)

// TestCheckWhileAnotherHolds: a path another owner checked out shows its
// holder, the holder's liveness with evidence, and a waiting write with
// its retry time; a free path is free.
func TestCheckWhileAnotherHolds(t *testing.T) {
	w := newWorld(t)
	w.register(t, "bob")
	w.register(t, "carol")
	held := w.acquire(t, "bob", "src/a.go")
	r, err := w.client.Mutate(w.ctx, leasegate.MutateRequest{Owner: "carol", Op: "write", Paths: []string{"src/a.go"}})
	if err != nil || r.Outcome != leasegate.Contended {
		t.Fatalf("carol's write = %+v, %v; want contended", r, err)
	}
	cs := w.session(t, "alice", nil)
	var out mcp.CheckOutput
	txt := mustCall(t, cs, "leases_check", map[string]any{"paths": []string{"src/a.go", "src/b.go"}}, &out)
	if len(out.Paths) != 2 || out.Paths[1].State != mcp.Free {
		t.Fatalf("check = %+v, want src/b.go free", out)
	}
	a := out.Paths[0]
	if a.State != mcp.HeldByOther || len(a.Holders) != 1 {
		t.Fatalf("src/a.go = %+v, want held by other", a)
	}
	h := a.Holders[0]
	if h.Holder != "bob" || h.LeaseID != string(held.ID) || h.Kind != "checkout" || h.Liveness != "alive" || len(h.Evidence) == 0 || h.HeldFor == "" || h.ExpiresAt == "" {
		t.Errorf("holder = %+v, want bob's check-out, alive with evidence", h)
	}
	if len(a.Contentions) != 1 || a.Contentions[0].Requester != "carol" || a.Contentions[0].RetryAt == "" || a.Contentions[0].RetryInSecs <= 0 {
		t.Errorf("contentions = %+v, want carol's with a retry time", a.Contentions)
	}
	for _, want := range []string{"src/a.go: held by other", "by bob", "holder alive", "carol waits, retried at", "src/b.go: free"} {
		if !strings.Contains(txt, want) {
			t.Errorf("text lacks %q:\n%s", want, txt)
		}
	}
}

// TestCheckIsOneRequest: leases_check of many paths, by a server that
// learns its owner from the coordinator, asks the coordinator once and
// never for the whole status.
func TestCheckIsOneRequest(t *testing.T) {
	w := newWorld(t)
	w.register(t, "bob")
	w.acquire(t, "bob", "p3.go")
	calls := &countingCoordinator{}
	cs := w.session(t, "", func(ctx context.Context) (mcp.Coordinator, error) {
		cl, err := w.connect(ctx)
		calls.Coordinator = cl
		return calls, err
	})
	var out mcp.CheckOutput
	mustCall(t, cs, "leases_check", map[string]any{"paths": []string{"p1.go", "p2.go", "p3.go", "src/**"}}, &out)
	if len(out.Paths) != 4 || out.Paths[2].State != mcp.HeldByOther || out.Paths[0].State != mcp.Free {
		t.Fatalf("check = %+v, want p3.go held by bob and the rest free", out)
	}
	if calls.check != 1 || calls.status != 0 || calls.whoami != 0 {
		t.Errorf("leases_check asked %d checks, %d statuses, %d whoamis; want one check", calls.check, calls.status, calls.whoami)
	}
}

// TestCheckOfAnOlderCoordinator: a coordinator that has no check (an
// older leasegate started it) is asked as before, whoami and status, and
// the answer is the same.
func TestCheckOfAnOlderCoordinator(t *testing.T) {
	w := newWorld(t)
	w.register(t, "bob")
	w.acquire(t, "bob", "p3.go")
	calls := &countingCoordinator{noCheck: true}
	cs := w.session(t, "", func(ctx context.Context) (mcp.Coordinator, error) {
		cl, err := w.connect(ctx)
		calls.Coordinator = cl
		return calls, err
	})
	var out mcp.CheckOutput
	mustCall(t, cs, "leases_check", map[string]any{"paths": []string{"p1.go", "p3.go"}}, &out)
	if len(out.Paths) != 2 || out.Paths[1].State != mcp.HeldByOther || out.Paths[1].Holders[0].Liveness != "alive" || out.Paths[0].State != mcp.Free {
		t.Fatalf("check = %+v, want p3.go held by bob, alive, and p1.go free", out)
	}
	if calls.status != 1 || calls.whoami != 1 {
		t.Errorf("leases_check asked %d statuses, %d whoamis of a coordinator without the check; want one each", calls.status, calls.whoami)
	}
}

// countingCoordinator counts the read calls made of a real client; with
// noCheck it answers Check as a coordinator without the endpoint does.
type countingCoordinator struct {
	mcp.Coordinator
	noCheck               bool
	check, status, whoami int
}

func (c *countingCoordinator) Check(ctx context.Context, paths []string) (leasegate.CheckView, error) {
	c.check++
	if c.noCheck {
		return leasegate.CheckView{}, &gate.DeniedError{Reason: gate.ReasonNotFound, Message: "no stream endpoint POST /v1/check"}
	}
	return c.Coordinator.Check(ctx, paths)
}

func (c *countingCoordinator) Status(ctx context.Context) (leasegate.Status, error) {
	c.status++
	return c.Coordinator.Status(ctx)
}

func (c *countingCoordinator) Whoami(ctx context.Context) (leasegate.CallerView, error) {
	c.whoami++
	return c.Coordinator.Whoami(ctx)
}

// TestLeaseLifecycle runs every lease tool as one owner: acquire (and
// again), check, renew, release, checkin by path, history, status.
func TestLeaseLifecycle(t *testing.T) {
	w := newWorld(t)
	cs := w.session(t, "alice", nil)
	var got mcp.LeaseOutput
	mustCall(t, cs, "lease_acquire", map[string]any{"paths": []string{"docs/"}, "ttl": "2h", "note": "rewrite docs"}, &got)
	if got.Done != "acquired" || len(got.Leases) != 1 || got.Leases[0].Scope != "sparse" || got.Me != "alice" {
		t.Fatalf("acquire = %+v", got)
	}
	id := got.Leases[0].LeaseID
	mustCall(t, cs, "lease_acquire", map[string]any{"paths": []string{"docs/"}, "ttl": "2h"}, &got)
	if got.Done != "already held" || got.Leases[0].LeaseID != id {
		t.Errorf("acquire again = %+v, want already held %s", got, id)
	}
	// A Go file's lease holds its test file too (the default pair rule):
	// asked again, it is already held, not an overlap with itself.
	mustCall(t, cs, "lease_acquire", map[string]any{"paths": []string{"src/x.go"}}, &got)
	goID := got.Leases[0].LeaseID
	mustCall(t, cs, "lease_acquire", map[string]any{"paths": []string{"src/x.go"}}, &got)
	if got.Done != "already held" || got.Leases[0].LeaseID != goID {
		t.Errorf("acquire src/x.go again = %+v, want already held %s", got, goID)
	}
	mustCall(t, cs, "lease_release", map[string]any{"lease": goID}, &got)
	var chk mcp.CheckOutput
	mustCall(t, cs, "leases_check", map[string]any{"paths": []string{"docs/x.md"}}, &chk)
	if chk.Paths[0].State != mcp.HeldByMe || chk.Me != "alice" {
		t.Errorf("check = %+v, want held by me", chk)
	}
	mustCall(t, cs, "lease_renew", map[string]any{"lease": id, "ttl": "3h"}, &got)
	if got.Done != "renewed" {
		t.Errorf("renew = %+v", got)
	}
	mustCall(t, cs, "lease_release", map[string]any{"lease": "docs/x.md"}, &got)
	if got.Done != "released" || got.Leases[0].LeaseID != id {
		t.Errorf("release = %+v", got)
	}
	mustCall(t, cs, "lease_acquire", map[string]any{"paths": []string{"main.go"}}, &got)
	mustCall(t, cs, "lease_checkin", map[string]any{"lease": "main.go", "note": "done"}, &got)
	if got.Done != "checked in" {
		t.Errorf("checkin = %+v", got)
	}
	var hist mcp.HistoryOutput
	mustCall(t, cs, "history", map[string]any{"lease_id": id}, &hist)
	if types := eventTypes(hist); !strings.Contains(types, "lease.granted") || !strings.Contains(types, "lease.released") {
		t.Errorf("history of %s = %s", id, types)
	}
	mustCall(t, cs, "history", map[string]any{"path": "main.go", "limit": 10}, &hist)
	if types := eventTypes(hist); !strings.Contains(types, "lease.completed") {
		t.Errorf("history of main.go = %s", types)
	}
	var st mcp.StatusOutput
	mustCall(t, cs, "leases_status", map[string]any{}, &st)
	if len(st.Leases) != 0 || st.Now == "" {
		t.Errorf("status = %+v, want no lease left", st)
	}
}

func eventTypes(h mcp.HistoryOutput) string {
	var s []string
	for _, e := range h.Events {
		s = append(s, e.Type)
	}
	return strings.Join(s, " ")
}

// TestAcquireHeldByOther: acquiring what another owner holds is refused
// with its reason code and the holder, and takes nothing.
func TestAcquireHeldByOther(t *testing.T) {
	w := newWorld(t)
	w.register(t, "bob")
	held := w.acquire(t, "bob", "a.go").ID
	cs := w.session(t, "alice", nil)
	code, msg := toolError(t, cs, "lease_acquire", map[string]any{"paths": []string{"a.go", "b.go"}})
	if code != gate.ReasonHeldByOther || !strings.Contains(msg, "bob") || strings.Count(msg, string(held)) != 1 {
		t.Errorf("acquire = %s %q, want LEASE_HELD_BY_OTHER naming bob and lease %s once", code, msg, held)
	}
	if ls, _ := w.client.Leases(w.ctx, "b.go"); len(ls) != 0 {
		t.Errorf("b.go leases = %v, want none", ls)
	}
}

// TestBlockers lists and shows an open blocker as Markdown.
func TestBlockers(t *testing.T) {
	w := newWorld(t)
	w.register(t, "bob")
	w.register(t, "carol")
	w.acquire(t, "bob", "a.go")
	w.blockedWrite(t, "carol", "a.go")
	cs := w.session(t, "alice", nil)
	var list mcp.BlockersOutput
	mustCall(t, cs, "blockers_list", map[string]any{}, &list)
	if len(list.Blockers) != 1 || list.Blockers[0].Holder != "bob" || list.Blockers[0].Requester != "carol" {
		t.Fatalf("blockers = %+v", list)
	}
	var show mcp.BlockerOutput
	md := mustCall(t, cs, "blocker_show", map[string]any{"id": list.Blockers[0].ID}, &show)
	if !strings.HasPrefix(md, "#") || show.Markdown != md || !strings.Contains(md, "bob") {
		t.Errorf("blocker_show = %q", md)
	}
	var chk mcp.CheckOutput
	mustCall(t, cs, "leases_check", map[string]any{"paths": []string{"a.go"}}, &chk)
	if len(chk.Paths[0].Blockers) != 1 {
		t.Errorf("check = %+v, want the open blocker", chk.Paths[0])
	}
}

// TestBadInput: every malformed call is an error result with its reason
// code, and changes nothing.
func TestBadInput(t *testing.T) {
	w := newWorld(t)
	cs := w.session(t, "alice", nil)
	long := strings.Repeat("x", gate.MaxIDLen+1)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want gate.Reason
	}{
		{"leases_check", map[string]any{"paths": []string{"a.go"}, "owner": "bob"}, gate.ReasonInputInvalid},
		{"leases_check", map[string]any{"paths": "a.go"}, gate.ReasonInputInvalid},
		{"leases_check", map[string]any{"paths": []string{}}, gate.ReasonInputInvalid},
		{"leases_check", map[string]any{"paths": []string{"/etc/passwd"}}, gate.ReasonOutsideWorkspace},
		{"leases_check", map[string]any{"paths": []string{"../x"}}, gate.ReasonOutsideWorkspace},
		{"lease_acquire", map[string]any{"paths": []string{"a/../b"}}, gate.ReasonOutsideWorkspace},
		{"lease_acquire", map[string]any{"paths": []string{"a.go"}, "ttl": "10s"}, gate.ReasonTTLOutOfBounds},
		{"lease_acquire", map[string]any{"paths": []string{"a.go"}, "ttl": "9999h"}, gate.ReasonTTLOutOfBounds},
		{"lease_acquire", map[string]any{"paths": []string{"a.go"}, "ttl": "soon"}, gate.ReasonInputInvalid},
		{"lease_acquire", map[string]any{"paths": []string{"a.go"}, "scope": "most"}, gate.ReasonInputInvalid},
		{"lease_acquire", map[string]any{"paths": []string{"a.go"}, "force": true}, gate.ReasonInputInvalid},
		{"lease_renew", map[string]any{"lease": long}, gate.ReasonInputInvalid},
		{"lease_release", map[string]any{"lease": ""}, gate.ReasonInputInvalid},
		{"lease_checkin", map[string]any{"lease": "/tmp/x"}, gate.ReasonOutsideWorkspace},
		{"blocker_show", map[string]any{"id": long}, gate.ReasonInputInvalid},
		{"blocker_show", map[string]any{}, gate.ReasonInputInvalid},
		{"blockers_list", map[string]any{"open": true}, gate.ReasonInputInvalid},
		{"leases_status", map[string]any{"verbose": true}, gate.ReasonInputInvalid},
		{"history", map[string]any{"path": "a.go", "lease_id": "01X"}, gate.ReasonInputInvalid},
		{"history", map[string]any{"limit": 100000}, gate.ReasonInputInvalid},
		{"history", map[string]any{"lease_id": long}, gate.ReasonInputInvalid},
		{"history", map[string]any{"path": "../../etc"}, gate.ReasonOutsideWorkspace},
	} {
		t.Run(fmt.Sprintf("%s %v", tc.tool, tc.args), func(t *testing.T) {
			if code, msg := toolError(t, cs, tc.tool, tc.args); code != tc.want || strings.Count(msg, string(code)) != 1 {
				t.Errorf("code = %s (%s), want %s, said once", code, msg, tc.want)
			}
		})
	}
	st, err := w.client.Status(w.ctx)
	if err != nil || len(st.Leases) != 0 || len(st.Owners) != 0 {
		t.Errorf("status after bad input = %d leases, %d owners, %v; want nothing", len(st.Leases), len(st.Owners), err)
	}
}

// TestAnothersLeaseByPath: renewing, releasing or checking in a path
// another session holds is OWNER_MISMATCH naming the holder, as for its
// lease id, not LEASE_NOT_FOUND; and the lease stays.
func TestAnothersLeaseByPath(t *testing.T) {
	w := newWorld(t)
	bob := w.session(t, "bob", nil)
	mustCall(t, bob, "lease_acquire", map[string]any{"paths": []string{"a.go"}}, nil)
	alice := w.session(t, "alice", nil)
	for _, tool := range []string{"lease_renew", "lease_release", "lease_checkin"} {
		if code, msg := toolError(t, alice, tool, map[string]any{"lease": "a.go"}); code != gate.ReasonOwnerMismatch || !strings.Contains(msg, "bob") {
			t.Errorf("%s of bob's a.go by alice = %s %q, want OWNER_MISMATCH naming bob", tool, code, msg)
		}
	}
	if ls, err := w.client.Leases(w.ctx, "a.go"); err != nil || len(ls) != 1 || ls[0].Owner.Name != "bob" {
		t.Errorf("leases of a.go after alice's attempts = %+v, %v; want bob's, still", ls, err)
	}
}

// TestCoordinatorDown: with no coordinator, and after it stops
// mid-session, every tool says so, never "free".
func TestCoordinatorDown(t *testing.T) {
	w := newWorld(t)
	none := func(context.Context) (mcp.Coordinator, error) {
		return nil, fmt.Errorf("%w: no coordinator answers", api.ErrUnavailable)
	}
	down := w.session(t, "alice", none)
	live := w.session(t, "alice", nil)
	mustCall(t, live, "leases_check", map[string]any{"paths": []string{"a.go"}}, nil)
	w.stop()
	for _, cs := range []struct {
		name string
		s    *sdk.ClientSession
	}{{"never up", down}, {"stopped", live}} {
		for tool, args := range allTools() {
			t.Run(cs.name+" "+tool, func(t *testing.T) {
				code, msg := toolError(t, cs.s, tool, args)
				if code != api.CodeUnavailable || !strings.Contains(msg, "cannot be reached") {
					t.Errorf("%s = %s %q, want COORDINATOR_UNAVAILABLE", tool, code, msg)
				}
			})
		}
	}
}

// allTools is a valid call of every tool.
func allTools() map[string]map[string]any {
	return map[string]map[string]any{
		"leases_check":  {"paths": []string{"a.go"}},
		"leases_status": {},
		"lease_acquire": {"paths": []string{"a.go"}},
		"lease_renew":   {"lease": "01JABCDEFGHJKMNPQRSTVWXYZ0"},
		"lease_release": {"lease": "a.go"},
		"lease_checkin": {"lease": "a.go"},
		"blockers_list": {},
		"blocker_show":  {"id": "01JABCDEFGHJKMNPQRSTVWXYZ0"},
		"history":       {"path": "a.go"},
	}
}

// TestNoticeWhenFree: a client subscribed to a held path's resource is
// told when the holder releases it, and reading it then says free.
func TestNoticeWhenFree(t *testing.T) {
	w := newWorld(t)
	w.register(t, "bob")
	held := w.acquire(t, "bob", "a.go")
	updated := make(chan string, 8)
	cs := w.sessionWith(t, "alice", &sdk.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
		updated <- req.Params.URI
	}})
	var chk mcp.CheckOutput
	mustCall(t, cs, "leases_check", map[string]any{"paths": []string{"a.go"}}, &chk)
	uri := chk.Paths[0].Watch
	if uri != mcp.PathURI("a.go") {
		t.Fatalf("watch = %q, want %q", uri, mcp.PathURI("a.go"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	w.release(t, "bob", held)
	waitUpdated(ctx, t, updated, uri, "the release")
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	var pc mcp.PathCheck
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &pc); err != nil || pc.State != mcp.Free {
		t.Errorf("resource = %s, %v; want free", res.Contents[0].Text, err)
	}
}

// TestNoticeOfAChangeWhileSubscribing: a path released while its
// subscription is being made (after the handler took its state, before
// the SDK recorded it, when a notification reaches nobody) is notified
// once the subscription is recorded, in the protocol's newer way
// (subscriptions/listen, whose Subscribe returns before the server has
// seen it) and the older (resources/subscribe).
func TestNoticeOfAChangeWhileSubscribing(t *testing.T) {
	for _, protocol := range []string{"", "2025-06-18"} {
		t.Run(cmp.Or(protocol, "newest"), func(t *testing.T) {
			w := newWorld(t)
			w.protocol = protocol
			w.register(t, "bob")
			updated := make(chan string, 8)
			cs := w.sessionWith(t, "alice", &sdk.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
				updated <- req.Params.URI
			}})
			for i := range 5 {
				held := w.acquire(t, "bob", "a.go")
				var chk mcp.CheckOutput
				mustCall(t, cs, "leases_check", map[string]any{"paths": []string{"a.go"}}, &chk)
				uri := chk.Paths[0].Watch
				released := make(chan struct{})
				mcp.OnSubscribing(w.server, func() {
					defer close(released)
					w.release(t, "bob", held)
					// The watch's own look at the coordinator comes now,
					// before the SDK records the subscription.
					time.Sleep(50 * time.Millisecond)
				})
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err != nil {
					t.Fatal(err)
				}
				waitUpdated(ctx, t, updated, uri, fmt.Sprintf("subscription %d's release made while subscribing", i))
				cancel()
				<-released
				if err := cs.Unsubscribe(context.Background(), &sdk.UnsubscribeParams{URI: uri}); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// waitUpdated waits until ctx ends for updated to tell of uri, after
// what.
func waitUpdated(ctx context.Context, t *testing.T, updated <-chan string, uri, what string) {
	t.Helper()
	select {
	case got := <-updated:
		if got != uri {
			t.Errorf("updated %q, want %q", got, uri)
		}
	case <-ctx.Done():
		t.Fatalf("no resource update after %s", what)
	}
}

// TestAcquireFileScopeTakesNamesLiterally: a check-out with scope file
// of app/[id]/page.tsx is that one file, and leaves app/a/page.tsx free.
func TestAcquireFileScopeTakesNamesLiterally(t *testing.T) {
	w := newWorld(t)
	cs := w.session(t, "alice", nil)
	var got mcp.LeaseOutput
	mustCall(t, cs, "lease_acquire", map[string]any{"paths": []string{"app/[id]/page.tsx"}, "scope": "file"}, &got)
	if len(got.Leases) != 1 || got.Leases[0].Scope != "file" || !slices.Equal(got.Leases[0].Paths, []string{`app/\[id]/page.tsx`}) {
		t.Fatalf("acquire = %+v, want a file lease of app/\\[id]/page.tsx", got)
	}
	var chk mcp.CheckOutput
	mustCall(t, cs, "leases_check", map[string]any{"paths": []string{"app/a/page.tsx", `app/\[id]/page.tsx`}}, &chk)
	if chk.Paths[0].State != mcp.Free || chk.Paths[1].State != mcp.HeldByMe {
		t.Errorf("check = %+v, want app/a/page.tsx free and app/[id]/page.tsx held by me", chk)
	}
}
