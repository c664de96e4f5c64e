package coordinator_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
)

// slowLiveness keeps the liveness ticker from ticking half a million times
// over a 72 h horizon; these tests are about the sweep and the reminder.
func slowLiveness(c *coordinator.Config) { c.LivenessEvery = time.Hour }

// acquiredAt is when the check-out tests take their lease: off the
// minute grid of the sweep, so that expiry and the sweep differ.
const acquiredAt = 30 * time.Second

// TestCheckoutReminderOnceAndExpiry: a check-out gets the 72 h default, a
// ULID, exactly one reminder at expires-2h (a ledger notice, also handed
// to Notify), and is expired by the minute sweep at or after expires_at,
// never before.
func TestCheckoutReminderOnceAndExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, slowLiveness)
		e.advanceTo(acquiredAt)
		l := e.checkout("carol", 0, "docs/**")
		exp := e.at(acquiredAt + 72*time.Hour)
		if l.Kind != gate.KindCheckout || !l.AcquiredAt.Equal(e.at(acquiredAt)) || !l.ExpiresAt.Equal(exp) {
			t.Fatalf("check-out %s acquired %s expires %s, want checkout, %s, %s", l.Kind, l.AcquiredAt, l.ExpiresAt, e.at(acquiredAt), exp)
		}
		if _, err := ulid.ParseStrict(string(l.ID)); err != nil {
			t.Fatalf("lease id %q is not a ULID: %v", l.ID, err)
		}
		remindAt := exp.Add(-2 * time.Hour).Sub(e.start)
		e.advanceTo(remindAt - time.Millisecond)
		checkReminders(t, e, l.ID, 0)
		e.advanceTo(remindAt)
		checkReminders(t, e, l.ID, 1)
		if ev := e.events(gate.EventReminded)[0]; !ev.At.Equal(e.at(remindAt)) {
			t.Fatalf("reminded at %s, want exactly %s", ev.At, e.at(remindAt))
		}
		if !e.lease(l.ID).ReminderSent {
			t.Fatal("lease does not record its reminder as sent")
		}
		e.advanceTo(72*time.Hour + acquiredAt - time.Millisecond)
		checkReminders(t, e, l.ID, 1)
		if got := e.lease(l.ID).State; got != gate.StateActive {
			t.Fatalf("lease %s 1 ms before expiry, want active", got)
		}
		checkExpiry(t, e, l, exp)
		e.advanceTo(80 * time.Hour)
		checkReminders(t, e, l.ID, 1)
		if n := len(e.events(gate.EventExpired)); n != 1 {
			t.Fatalf("%d lease.expired events, want 1", n)
		}
	})
}

// checkExpiry moves past expires_at up to the next sweep: from expires_at
// the holder is refused with LEASE_EXPIRED, and the sweep records the
// expiry (with a notice) no earlier than expires_at.
func checkExpiry(t *testing.T, e *env, l gate.Lease, exp time.Time) {
	t.Helper()
	e.advanceTo(exp.Sub(e.start))
	_, err := e.c.Lease(e.ctx, leasegate.LeaseRequest{Op: gate.OpCheckin, Owner: l.Owner, LeaseID: l.ID, Token: l.FencingToken})
	if !errors.Is(err, gate.ErrExpired) {
		t.Fatalf("checkin at expires_at = %v, want ErrExpired", err)
	}
	nextSweep := exp.Sub(e.start).Truncate(time.Minute) + time.Minute // sweeps run on the minutes since Run started
	e.advanceTo(nextSweep - time.Millisecond)
	if n := len(e.events(gate.EventExpired)); n != 0 {
		t.Fatalf("%d lease.expired events before the sweep, want 0", n)
	}
	e.advanceTo(nextSweep)
	evs := e.events(gate.EventExpired)
	if len(evs) != 1 || evs[0].LeaseID != l.ID || evs[0].At.Before(exp) || !evs[0].At.Equal(e.at(nextSweep)) {
		t.Fatalf("lease.expired events %+v, want one for %s by the sweep at %s", evs, l.ID, e.at(nextSweep))
	}
	if got := e.lease(l.ID).State; got != gate.StateExpired {
		t.Fatalf("lease %s after the sweep, want expired", got)
	}
	synctest.Wait()
	if ns := e.notices.of(leasegate.NoticeExpired); len(ns) != 1 || ns[0].LeaseID != l.ID || ns[0].Owner != "carol" {
		t.Fatalf("expiry notices %+v, want one to carol about %s", ns, l.ID)
	}
}

// checkReminders checks that lease id has had exactly n reminders: in the
// ledger (lease.reminded and a notice to its owner) and through Notify.
func checkReminders(t *testing.T, e *env, id gate.LeaseID, n int) {
	t.Helper()
	if got := len(e.events(gate.EventReminded)); got != n {
		t.Fatalf("%d lease.reminded events at %s, want %d", got, e.now(), n)
	}
	notices := 0
	for _, ev := range e.events(gate.EventNotice) {
		if ev.Reason == string(leasegate.NoticeReminder) && ev.LeaseID == id && ev.Actor == "carol" {
			notices++
		}
	}
	synctest.Wait()
	delivered := e.notices.of(leasegate.NoticeReminder)
	if notices != n || len(delivered) != n {
		t.Fatalf("%d reminder notices in the ledger and %d delivered at %s, want %d", notices, len(delivered), e.now(), n)
	}
	if n > 0 && (delivered[0].LeaseID != id || delivered[0].Owner != "carol" || delivered[0].Message == "") {
		t.Fatalf("delivered reminder %+v, want one to carol about %s", delivered[0], id)
	}
}

// TestCheckoutEvictionNeedsAdmin: eviction without the admin is refused
// and changes nothing; with it the lease ends, the ledger records who and
// why, the owner gets a notice, and its check-in is refused as evicted.
func TestCheckoutEvictionNeedsAdmin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		l := e.checkout("carol", 0, "docs/**")
		evict := leasegate.LeaseRequest{Op: gate.OpEvict, Owner: gate.Owner{Name: "ops"}, LeaseID: l.ID, Reason: "carol is on leave"}
		if _, err := e.c.Lease(e.ctx, evict); !errors.Is(err, gate.ErrAdminRequired) {
			t.Fatalf("Lease(evict) without admin = %v, want ErrAdminRequired", err)
		}
		if got := e.lease(l.ID).State; got != gate.StateActive {
			t.Fatalf("lease %s after a refused eviction, want active", got)
		}
		evict.Admin = "root"
		if _, err := e.c.Lease(e.ctx, evict); err != nil {
			t.Fatalf("Lease(evict) as root = %v", err)
		}
		if got := e.lease(l.ID); got.State != gate.StateEvicted || got.EndedBy != "root" || got.ReleaseReason != "carol is on leave" {
			t.Fatalf("evicted lease %s by %q for %q, want evicted by root with the reason", got.State, got.EndedBy, got.ReleaseReason)
		}
		if evs := e.events(gate.EventEvicted); len(evs) != 1 || evs[0].Actor != "root" || evs[0].Reason != "carol is on leave" {
			t.Fatalf("lease.evicted events %+v, want one by root with the reason", evs)
		}
		synctest.Wait()
		if ns := e.notices.of(leasegate.NoticeEvicted); len(ns) != 1 || ns[0].Owner != "carol" || ns[0].LeaseID != l.ID {
			t.Fatalf("eviction notices %+v, want one to carol about %s", ns, l.ID)
		}
		if n := len(e.events(gate.EventNotice)); n != 1 {
			t.Fatalf("%d notice events in the ledger, want the eviction notice", n)
		}
		_, err := e.c.Lease(e.ctx, leasegate.LeaseRequest{Op: gate.OpCheckin, Owner: l.Owner, LeaseID: l.ID, Token: l.FencingToken})
		if !errors.Is(err, gate.ErrEvicted) {
			t.Fatalf("checkin of an evicted lease = %v, want ErrEvicted", err)
		}
	})
}

// TestCheckoutHolderOpsFailClosed: renew, release, validate and checkin
// with a wrong token, a wrong owner or an unknown id are refused with
// their own codes and leave the lease as it was; the holder's own calls
// work.
func TestCheckoutHolderOpsFailClosed(t *testing.T) {
	type call struct {
		name  string
		owner string
		id    func(gate.Lease) gate.LeaseID
		token func(gate.Lease) uint64
		want  error
	}
	same := func(l gate.Lease) gate.LeaseID { return l.ID }
	right := func(l gate.Lease) uint64 { return l.FencingToken }
	calls := []call{
		{name: "wrong token", owner: "carol", id: same, token: func(l gate.Lease) uint64 { return l.FencingToken + 1 }, want: gate.ErrTokenInvalid},
		{name: "no token", owner: "carol", id: same, token: func(gate.Lease) uint64 { return 0 }, want: gate.ErrTokenInvalid},
		{name: "wrong owner", owner: "bob", id: same, token: right, want: gate.ErrOwnerMismatch},
		{name: "unknown id", owner: "carol", id: func(gate.Lease) gate.LeaseID { return "01J00000000000000000000000" }, token: right, want: gate.ErrNotFound},
	}
	ops := []gate.Op{gate.OpRenew, gate.OpRelease, gate.OpValidate, gate.OpCheckin}
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		l := e.checkout("carol", 0, "docs/**")
		for _, op := range ops {
			for _, c := range calls {
				_, err := e.c.Lease(e.ctx, leasegate.LeaseRequest{Op: op, Owner: gate.Owner{Name: c.owner}, LeaseID: c.id(l), Token: c.token(l), TTL: 72 * time.Hour})
				if !errors.Is(err, c.want) {
					t.Errorf("Lease(%s, %s) = %v, want %v", op, c.name, err, c.want)
				}
			}
		}
		if got := e.lease(l.ID); got.State != gate.StateActive || !got.ExpiresAt.Equal(l.ExpiresAt) || got.RenewalCount != 0 {
			t.Fatalf("lease after refused calls: %s expiring %s renewed %d times, want it untouched", got.State, got.ExpiresAt, got.RenewalCount)
		}
		if n := len(e.events(gate.EventRenewed)) + len(e.events(gate.EventReleased)) + len(e.events(gate.EventCompleted)); n != 0 {
			t.Fatalf("%d lease events from refused calls, want 0", n)
		}
		e.advanceTo(time.Hour)
		own := leasegate.LeaseRequest{Owner: l.Owner, LeaseID: l.ID, Token: l.FencingToken}
		own.Op, own.TTL = gate.OpRenew, 72*time.Hour
		if _, err := e.c.Lease(e.ctx, own); err != nil || !e.lease(l.ID).ExpiresAt.Equal(e.at(73*time.Hour)) {
			t.Fatalf("renew by the holder = %v, expires %s; want %s", err, e.lease(l.ID).ExpiresAt, e.at(73*time.Hour))
		}
		own.Op, own.TTL = gate.OpCheckin, 0
		if _, err := e.c.Lease(e.ctx, own); err != nil || e.lease(l.ID).State != gate.StateCompleted {
			t.Fatalf("checkin by the holder = %v, state %s; want completed", err, e.lease(l.ID).State)
		}
		if _, err := e.c.Lease(e.ctx, own); !errors.Is(err, gate.ErrTerminal) {
			t.Fatalf("second checkin = %v, want ErrTerminal", err)
		}
	})
}

// TestCheckoutScopes: overlapping check-outs are refused, disjoint sparse
// scopes coexist, and an auto write inside another owner's check-out
// contends.
func TestCheckoutScopes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		e.checkout("carol", 0, "docs/**")
		e.checkout("dave", 0, "src/**")
		tests := []struct {
			owner string
			path  string
			want  error
		}{
			{owner: "dave", path: "docs/guide.md", want: gate.ErrHeldByOther},
			{owner: "carol", path: "docs/api/**", want: gate.ErrScopeOverlap},
		}
		for _, tt := range tests {
			_, err := e.c.Lease(e.ctx, leasegate.LeaseRequest{Op: gate.OpAcquire, Owner: gate.Owner{Name: tt.owner},
				Scope: gate.Scope{Type: gate.ScopeSparse, Paths: []string{tt.path}}})
			if !errors.Is(err, tt.want) {
				t.Errorf("Lease(acquire %s %s) = %v, want %v", tt.owner, tt.path, err, tt.want)
			}
		}
		if r := e.mutate("bob", "docs/guide.md"); r.Outcome != leasegate.Contended || r.Holder.Owner.Name != "carol" {
			t.Fatalf("Mutate(bob, docs/guide.md) = %s, want contended on carol's check-out", r.Outcome)
		}
	})
}

// TestCoversTree: only a lease that takes a directory whole covers it as
// a tree; a file or a one-level glob under it does not, nor a released
// lease.
func TestCoversTree(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, slowLiveness)
		e.checkout("ann", 0, "docs/*.md")
		e.checkout("bob", 0, "src/a.go")
		if e.c.CoversTree("docs") || e.c.CoversTree("src") {
			t.Fatal("CoversTree true for a directory only partly leased")
		}
		e.checkout("dan", 0, "lib/**")
		if e.c.CoversTree("lib") {
			t.Fatal("CoversTree(lib) true for a check-out: a check-out gates no process, its tree must stay watched")
		}
		e.register("cat")
		if _, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: "cat", Op: "mkdir", Paths: []string{"vendor/**"}, Try: true}); err != nil {
			t.Fatal(err)
		}
		for dir, want := range map[string]bool{"vendor": true, "vendor/x/y": true, "vendorx": false, "docs": false} {
			if got := e.c.CoversTree(dir); got != want {
				t.Errorf("CoversTree(%q) with vendor/** leased = %v, want %v", dir, got, want)
			}
		}
		if _, err := e.c.End(e.ctx, "cat", "test"); err != nil {
			t.Fatal(err)
		}
		if e.c.CoversTree("vendor") {
			t.Fatal("CoversTree(vendor) still true after its lease was released")
		}
		for _, bad := range []string{"", "/abs", "../up", "a/*"} {
			if e.c.CoversTree(bad) {
				t.Errorf("CoversTree(%q) = true for a path that is no directory of the workspace", bad)
			}
		}
	})
}

// TestCovers: a path is covered when an active auto lease takes it, not
// when only a check-out does, nor once the lease is released; a glob or a
// path that is not a clean relative one is never covered.
func TestCovers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, slowLiveness)
		e.checkout("dan", 0, "docs/**")
		e.register("cat")
		e.mutate("cat", "src/a.go")
		if _, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: "cat", Op: "mkdir", Paths: []string{"vendor/**"}, Try: true}); err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			rel  string
			want bool
		}{
			{rel: "src/a.go", want: true},
			{rel: "./src/a.go", want: true},
			{rel: "src/b.go", want: false},
			{rel: "vendor/x/y.go", want: true},
			{rel: "docs/guide.md", want: false},
			{rel: "src/*.go", want: false},
			{rel: "/abs/src/a.go", want: false},
			{rel: "../src/a.go", want: false},
		}
		for _, tt := range tests {
			if got := e.c.Covers(tt.rel); got != tt.want {
				t.Errorf("Covers(%q) = %v, want %v", tt.rel, got, tt.want)
			}
		}
		if _, err := e.c.End(e.ctx, "cat", "test"); err != nil {
			t.Fatal(err)
		}
		if e.c.Covers("src/a.go") {
			t.Fatal("Covers(src/a.go) still true after its lease was released")
		}
	})
}
