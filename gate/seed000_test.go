package gate_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// TestSeed000 walks every scenario of seed 000 (lease management for
// check-out / check-in) through Decide and Table.Apply with a fixed now.
func TestSeed000(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, w *world)
	}{
		{"create full-scope lease", createFullScope},
		{"create sparse-scope lease", createSparseScope},
		{"lease ids are the caller's and unique", uniqueLeaseIDs},
		{"validate active lease", validateActive},
		{"reject expired lease", rejectExpired},
		{"reject wrong user", rejectWrongUser},
		{"expire lease at 72 hours", expireAt72h},
		{"no auto-renewal", noAutoRenewal},
		{"batch expiration", batchExpiration},
		{"one reminder per lease", oneReminder},
		{"admin eviction", adminEviction},
		{"full-scope overlap rejected", fullScopeOverlap},
		{"disjoint sparse scopes coexist", disjointSparse},
		{"partial sparse overlap rejected", partialSparseOverlap},
		{"completion on check-in frees the scope", completionOnCheckin},
		{"audit lease lifecycle", auditLifecycle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newWorld(t)) })
	}
}

func createFullScope(t *testing.T, w *world) {
	d := gate.Decide(checkout("alice", fullScope()), w.table, t0)
	if !d.Granted || d.Reason != gate.ReasonOK || len(d.Events) != 1 || d.Events[0].Type != gate.EventGranted {
		t.Fatalf("Decide(checkout full) = %+v, want one grant", d)
	}
	l := *d.Events[0].Lease
	want := gate.Lease{Owner: owner("alice"), Kind: gate.KindCheckout, Scope: fullScope(), State: gate.StateActive,
		FencingToken: 1, AcquiredAt: t0, LastHeartbeatAt: t0, ExpiresAt: t0.Add(72 * time.Hour)}
	if !reflect.DeepEqual(l, want) {
		t.Fatalf("granted lease = %+v, want %+v", l, want)
	}
	d.Events[0].Lease.ID = w.nextID()
	w.mustApply(d.Events[0])
	if got := w.lease(d.Events[0].Lease.ID); got.State != gate.StateActive || !got.ExpiresAt.Equal(t0.Add(gate.DefaultCheckoutTTL)) {
		t.Fatalf("table lease = %+v, want active until %s", got, t0.Add(gate.DefaultCheckoutTTL))
	}
}

func createSparseScope(t *testing.T, w *world) {
	s := sparse("docs/**", "src/api.go")
	l := w.grant(checkout("alice", s), t0)
	if !reflect.DeepEqual(l.Scope, s) || l.State != gate.StateActive || l.ExpiresAt.Sub(l.AcquiredAt) != 72*time.Hour {
		t.Fatalf("lease = %+v, want scope %v, active, 72h", l, s)
	}
	if got := w.table.Overlapping(sparse("docs/guide/intro.md")); len(got) != 1 || got[0].ID != l.ID {
		t.Fatalf("Overlapping(docs/guide/intro.md) = %v, want [%s]", got, l.ID)
	}
}

func uniqueLeaseIDs(t *testing.T, w *world) {
	d := gate.Decide(write("alice", "a.go", "b.go"), w.table, t0)
	if len(d.Events) != 2 {
		t.Fatalf("Decide(write a.go b.go) events = %d, want 2", len(d.Events))
	}
	for _, e := range d.Events {
		if e.Lease.ID != gate.NoLease {
			t.Fatalf("Decide filled lease id %q, want it left to the caller", e.Lease.ID)
		}
	}
	d.Events[0].Lease.ID = "01JDUPLICATE0000000000000"
	w.mustApply(d.Events[0])
	d.Events[1].Lease.ID = "01JDUPLICATE0000000000000"
	if err := w.apply(d.Events[1]); !errors.Is(err, gate.ErrLeaseExists) {
		t.Fatalf("Apply(duplicate id) = %v, want %v", err, gate.ErrLeaseExists)
	}
	if w.table.ActiveCount() != 1 || w.table.LastToken() != 1 {
		t.Fatalf("after refused duplicate: active %d, last token %d; want 1, 1", w.table.ActiveCount(), w.table.LastToken())
	}
	d.Events[1].Lease.ID = w.nextID()
	w.mustApply(d.Events[1])
}

func validateActive(t *testing.T, w *world) {
	s := sparse("docs/**")
	l := w.grant(checkout("alice", s), t0)
	now := t0.Add(10 * time.Hour)
	for _, op := range []gate.Op{gate.OpValidate, gate.OpCheckin} {
		d := gate.Decide(on(op, "alice", l), w.table, now)
		if !d.Granted || d.Remaining != 62*time.Hour || d.Lease == nil || !reflect.DeepEqual(d.Lease.Scope, s) {
			t.Fatalf("Decide(%s) = %+v, want granted with 62h left and scope %v", op, d, s)
		}
	}
}

func rejectExpired(t *testing.T, w *world) {
	l := w.grant(checkout("alice", fullScope()), t0)
	for _, op := range []gate.Op{gate.OpValidate, gate.OpCheckin, gate.OpRenew, gate.OpRelease} {
		d := gate.Decide(on(op, "alice", l), w.table, t0.Add(73*time.Hour))
		if d.Granted || d.Reason != gate.ReasonExpired || !errors.Is(d.Err(), gate.ErrExpired) || len(d.Events) != 0 {
			t.Fatalf("Decide(%s 73h later) = %s, want %s", op, d.Reason, gate.ReasonExpired)
		}
	}
}

func rejectWrongUser(t *testing.T, w *world) {
	l := w.grant(checkout("alice", fullScope()), t0)
	d := gate.Decide(on(gate.OpCheckin, "bob", l), w.table, t0.Add(time.Hour))
	if d.Granted || d.Reason != gate.ReasonOwnerMismatch || !errors.Is(d.Err(), gate.ErrOwnerMismatch) {
		t.Fatalf("Decide(checkin by bob) = %s, want %s", d.Reason, gate.ReasonOwnerMismatch)
	}
}

func expireAt72h(t *testing.T, w *world) {
	l := w.grant(checkout("alice", fullScope()), t0)
	if !l.Live(t0.Add(72*time.Hour - time.Nanosecond)) {
		t.Fatalf("Live(T+72h-1ns) = false, want true")
	}
	now := t0.Add(72*time.Hour + time.Second)
	w.mustApply(gate.Event{Type: gate.EventExpired, At: now, Actor: "coordinator", LeaseID: l.ID})
	got := w.lease(l.ID)
	if got.State != gate.StateExpired || !got.TerminatedAt.Equal(t0.Add(72*time.Hour)) {
		t.Fatalf("lease = %s terminated %s, want expired at %s", got.State, got.TerminatedAt, t0.Add(72*time.Hour))
	}
	if ov := w.table.Overlapping(fullScope()); len(ov) != 0 {
		t.Fatalf("Overlapping(full) = %v after expiry, want none", ov)
	}
	d := w.decide(checkout("bob", fullScope()), now)
	if !d.Granted || len(d.Events) != 1 {
		t.Fatalf("Decide(bob full after expiry) = %s with %d events, want a plain grant", d.Reason, len(d.Events))
	}
}

func noAutoRenewal(t *testing.T, w *world) {
	req := checkout("alice", sparse("docs/**"))
	req.TTL = time.Hour
	l := w.grant(req, t0)
	if d := gate.Decide(on(gate.OpValidate, "alice", l), w.table, t0.Add(time.Hour-time.Nanosecond)); !d.Granted {
		t.Fatalf("Decide(validate 1ns before expiry) = %s, want granted", d.Reason)
	}
	end := t0.Add(time.Hour)
	for _, op := range []gate.Op{gate.OpValidate, gate.OpRenew} {
		if d := gate.Decide(on(op, "alice", l), w.table, end); d.Reason != gate.ReasonExpired {
			t.Fatalf("Decide(%s at expiry) = %s, want %s (no grace period)", op, d.Reason, gate.ReasonExpired)
		}
	}
	got := w.lease(l.ID)
	if !got.ExpiresAt.Equal(end) || got.RenewalCount != 0 || !got.Expired(end) || got.Live(end) {
		t.Fatalf("lease at expiry = %+v, want expired at %s and never renewed", got, end)
	}
}

func batchExpiration(t *testing.T, w *world) {
	var ls []gate.Lease
	for _, c := range []struct{ who, path string }{{"alice", "docs/a.md"}, {"bob", "docs/b.md"}, {"dave", "src/c.go"}} {
		req := checkout(c.who, sparse(c.path))
		req.TTL = time.Hour
		ls = append(ls, w.grant(req, t0))
	}
	now := t0.Add(90 * time.Minute)
	d := w.decide(checkout("carol", sparse("docs/**")), now)
	types := eventTypes(d.Events)
	want := []gate.EventType{gate.EventExpired, gate.EventExpired, gate.EventGranted}
	if !d.Granted || !reflect.DeepEqual(types, want) || d.Events[0].LeaseID != ls[0].ID || d.Events[1].LeaseID != ls[1].ID {
		t.Fatalf("Decide(carol docs/**) events = %v, want %v for %s, %s", types, want, ls[0].ID, ls[1].ID)
	}
	for _, l := range ls[:2] {
		if got := w.lease(l.ID); got.State != gate.StateExpired || !got.TerminatedAt.Equal(l.ExpiresAt) {
			t.Fatalf("lease %s = %s terminated %s, want expired at %s", l.ID, got.State, got.TerminatedAt, l.ExpiresAt)
		}
	}
	early := gate.Event{Type: gate.EventExpired, At: ls[2].ExpiresAt.Add(-time.Second), LeaseID: ls[2].ID}
	if err := w.apply(early); !errors.Is(err, gate.ErrEarlyExpiry) {
		t.Fatalf("Apply(expired 1s early) = %v, want %v", err, gate.ErrEarlyExpiry)
	}
	if got := w.lease(ls[2].ID); got.State != gate.StateActive {
		t.Fatalf("lease out of the way = %s, want still active until swept", got.State)
	}
	w.mustApply(gate.Event{Type: gate.EventExpired, At: ls[2].ExpiresAt, LeaseID: ls[2].ID})
}

func eventTypes(es []gate.Event) []gate.EventType {
	var out []gate.EventType
	for _, e := range es {
		out = append(out, e.Type)
	}
	return out
}

func oneReminder(t *testing.T, w *world) {
	l := w.grant(checkout("alice", fullScope()), t0)
	at70 := t0.Add(70 * time.Hour)
	if d := gate.Decide(on(gate.OpValidate, "alice", l), w.table, at70); d.Remaining != gate.DefaultRemindBefore {
		t.Fatalf("Remaining at T+70h = %s, want %s", d.Remaining, gate.DefaultRemindBefore)
	}
	w.mustApply(gate.Event{Type: gate.EventReminded, At: at70, LeaseID: l.ID})
	if !w.lease(l.ID).ReminderSent {
		t.Fatalf("ReminderSent = false after the reminder, want true")
	}
	if err := w.apply(gate.Event{Type: gate.EventReminded, At: t0.Add(71 * time.Hour), LeaseID: l.ID}); !errors.Is(err, gate.ErrAlreadyReminded) {
		t.Fatalf("Apply(second reminder) = %v, want %v", err, gate.ErrAlreadyReminded)
	}
	renew := on(gate.OpRenew, "alice", l)
	w.grant(renew, t0.Add(71*time.Hour))
	if w.lease(l.ID).ReminderSent {
		t.Fatalf("ReminderSent = true after a renewal, want a fresh reminder allowed")
	}
	w.mustApply(gate.Event{Type: gate.EventReminded, At: t0.Add(141 * time.Hour), LeaseID: l.ID})
}

func adminEviction(t *testing.T, w *world) {
	l := w.grant(checkout("alice", sparse("src/**")), t0)
	now := t0.Add(5 * time.Hour)
	noAdmin := evict("root", l, "Emergency maintenance")
	noAdmin.Admin = ""
	for _, c := range []struct {
		req  gate.Request
		want gate.Reason
	}{
		{noAdmin, gate.ReasonAdminRequired},
		{evict("root", l, ""), gate.ReasonInputInvalid},
		{evict("root", l, "   "), gate.ReasonInputInvalid},
		{evict("root", l, strings.Repeat("x", 1025)), gate.ReasonInputInvalid},
	} {
		if d := gate.Decide(c.req, w.table, now); d.Granted || d.Reason != c.want || len(d.Events) != 0 {
			t.Fatalf("Decide(evict admin=%q reason=%.10q) = %s, want %s", c.req.Admin, c.req.Reason, d.Reason, c.want)
		}
	}
	w.grant(evict("root", l, "Emergency maintenance"), now)
	got := w.lease(l.ID)
	if got.State != gate.StateEvicted || got.EndedBy != "root" || got.ReleaseReason != "Emergency maintenance" || !got.TerminatedAt.Equal(now) {
		t.Fatalf("evicted lease = %+v, want evicted by root for the reason at %s", got, now)
	}
	d := gate.Decide(on(gate.OpCheckin, "alice", l), w.table, now.Add(time.Minute))
	if d.Reason != gate.ReasonEvicted || !errors.Is(d.Err(), gate.ErrEvicted) || !strings.Contains(d.Message, "Emergency maintenance") {
		t.Fatalf("Decide(checkin after eviction) = %s %q, want %s with the reason", d.Reason, d.Message, gate.ReasonEvicted)
	}
}

func fullScopeOverlap(t *testing.T, w *world) {
	held := w.grant(checkout("alice", fullScope()), t0)
	for _, req := range []gate.Request{
		checkout("bob", fullScope()),
		checkout("bob", sparse("docs/x.md")),
		write("bob", "README.md"),
		checkout("alice", sparse("docs/**")),
	} {
		d := gate.Decide(req, w.table, t0.Add(time.Hour))
		want := gate.ReasonHeldByOther
		if req.Owner.Name == "alice" {
			want = gate.ReasonScopeOverlap // her own full check-out
		}
		if d.Granted || d.Reason != want || d.Holder == nil || d.Holder.ID != held.ID || len(d.Events) != 0 {
			t.Fatalf("Decide(%s %s %v) = %s, want %s by %s", req.Kind, req.Owner.Name, req.Scope, d.Reason, want, held.ID)
		}
	}
}

func disjointSparse(t *testing.T, w *world) {
	a := w.grant(checkout("alice", sparse("docs/*")), t0)
	b := w.grant(checkout("bob", sparse("src/*")), t0)
	if got := w.table.ActiveCount(); got != 2 || a.ID == b.ID {
		t.Fatalf("ActiveCount() = %d, want 2 distinct leases", got)
	}
}

func partialSparseOverlap(t *testing.T, w *world) {
	held := w.grant(checkout("alice", sparse("docs/api.md")), t0)
	d := w.decide(checkout("bob", sparse("docs/guide.md", "docs/api.md")), t0)
	if d.Granted || d.Reason != gate.ReasonHeldByOther || d.Holder.ID != held.ID || !strings.Contains(d.Message, "docs/api.md") {
		t.Fatalf("Decide(bob docs/guide.md docs/api.md) = %s %q, want %s naming docs/api.md", d.Reason, d.Message, gate.ReasonHeldByOther)
	}
	if ov := w.table.Overlapping(sparse("docs/guide.md")); len(ov) != 0 {
		t.Fatalf("docs/guide.md leased after a refused request: %v", ov)
	}
}

func completionOnCheckin(t *testing.T, w *world) {
	l := w.grant(checkout("alice", sparse("docs/**")), t0)
	done := t0.Add(30 * time.Hour)
	w.grant(on(gate.OpCheckin, "alice", l), done)
	got := w.lease(l.ID)
	if got.State != gate.StateCompleted || !got.TerminatedAt.Equal(done) || got.EndedBy != "alice" {
		t.Fatalf("checked-in lease = %+v, want completed by alice at %s", got, done)
	}
	w.grant(checkout("bob", sparse("docs/api.md")), done)
}

func auditLifecycle(t *testing.T, w *world) {
	l := w.grant(checkout("alice", sparse("docs/*")), t0)
	w.grant(write("bob", "src/main.go"), t0.Add(time.Minute))
	w.mustApply(gate.Event{Type: gate.EventContention, At: t0.Add(2 * time.Minute), Actor: "bob", Path: "docs/api.md"})
	w.mustApply(gate.Event{Type: gate.EventReminded, At: t0.Add(70 * time.Hour), LeaseID: l.ID})
	w.grant(on(gate.OpRenew, "alice", l), t0.Add(71*time.Hour))
	w.grant(on(gate.OpCheckin, "alice", l), t0.Add(80*time.Hour))

	var created, expires, completed time.Time
	var transitions []gate.EventType
	for _, e := range w.log {
		if !e.IsLease() || !e.Touches(l.ID, "") {
			continue
		}
		transitions = append(transitions, e.Type)
		switch e.Type {
		case gate.EventGranted:
			created, expires = e.Lease.AcquiredAt, e.Lease.ExpiresAt
		case gate.EventRenewed:
			expires = e.ExpiresAt
		case gate.EventCompleted:
			completed = e.At
		}
	}
	wantTypes := []gate.EventType{gate.EventGranted, gate.EventReminded, gate.EventRenewed, gate.EventCompleted}
	if !reflect.DeepEqual(transitions, wantTypes) {
		t.Fatalf("history of %s = %v, want %v", l.ID, transitions, wantTypes)
	}
	got := w.lease(l.ID)
	if !created.Equal(got.AcquiredAt) || !expires.Equal(got.ExpiresAt) || !completed.Equal(got.TerminatedAt) || !expires.Equal(t0.Add(143*time.Hour)) {
		t.Fatalf("audit created %s expires %s completed %s, table %s %s %s", created, expires, completed, got.AcquiredAt, got.ExpiresAt, got.TerminatedAt)
	}
	var byPath []gate.EventType
	for _, e := range w.log {
		if e.Touches(gate.NoLease, "docs/api.md") {
			byPath = append(byPath, e.Type)
		}
	}
	if want := []gate.EventType{gate.EventGranted, gate.EventContention}; !reflect.DeepEqual(byPath, want) {
		t.Fatalf("history of docs/api.md = %v, want %v", byPath, want)
	}
}
