package gate_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// endings end an active lease l of alice at now, one per terminal state,
// with the reason holder operations must then give.
var endings = []struct {
	state  gate.State
	reason gate.Reason
	end    func(w *world, l gate.Lease, now time.Time)
}{
	{gate.StateReleased, gate.ReasonTerminal, func(w *world, l gate.Lease, now time.Time) { w.grant(on(gate.OpRelease, "alice", l), now) }},
	{gate.StateCompleted, gate.ReasonTerminal, func(w *world, l gate.Lease, now time.Time) { w.grant(on(gate.OpCheckin, "alice", l), now) }},
	{gate.StateEvicted, gate.ReasonEvicted, func(w *world, l gate.Lease, now time.Time) { w.grant(evict("root", l, "maintenance"), now) }},
	{gate.StateExpired, gate.ReasonExpired, func(w *world, l gate.Lease, _ time.Time) {
		w.mustApply(gate.Event{Type: gate.EventExpired, At: l.ExpiresAt, LeaseID: l.ID})
	}},
	{gate.StateReclaimed, gate.ReasonTerminal, func(w *world, l gate.Lease, now time.Time) {
		w.mustApply(gate.Event{Type: gate.EventReclaimed, At: now, Actor: "coordinator", LeaseID: l.ID, Reason: "owner dead", Data: json.RawMessage(`{"pid":4242}`)})
	}},
}

// TestTerminalStatesAreFinal covers INV-0101/0102 and CTR-0504: every
// operation on a terminal lease fails, through Decide and through Apply,
// and leaves the lease as it was.
func TestTerminalStatesAreFinal(t *testing.T) {
	for _, end := range endings {
		t.Run(string(end.state), func(t *testing.T) {
			w := newWorld(t)
			l := w.grant(checkout("alice", sparse("docs/**")), t0)
			end.end(w, l, t0.Add(time.Hour))
			before := w.lease(l.ID)
			if before.State != end.state {
				t.Fatalf("state = %s, want %s", before.State, end.state)
			}
			now := t0.Add(2 * time.Hour)
			for _, op := range []gate.Op{gate.OpRenew, gate.OpRelease, gate.OpValidate, gate.OpCheckin} {
				if d := gate.Decide(on(op, "alice", l), w.table, now); d.Granted || d.Reason != end.reason || len(d.Events) != 0 {
					t.Errorf("Decide(%s on %s) = %s, want %s", op, end.state, d.Reason, end.reason)
				}
			}
			if d := gate.Decide(evict("root", l, "again"), w.table, now); d.Reason != gate.ReasonTerminal {
				t.Errorf("Decide(evict on %s) = %s, want %s", end.state, d.Reason, gate.ReasonTerminal)
			}
			for _, e := range eventsOn(l, now) {
				if err := w.apply(e); !errors.Is(err, gate.ErrTerminal) {
					t.Errorf("Apply(%s on %s) = %v, want %v", e.Type, end.state, err, gate.ErrTerminal)
				}
			}
			if after := w.lease(l.ID); !jsonEqual(t, before, after) {
				t.Errorf("terminal lease changed: %+v, was %+v", after, before)
			}
		})
	}
}

// eventsOn is one valid-looking event of every lease-changing type for l.
func eventsOn(l gate.Lease, now time.Time) []gate.Event {
	who := l.Owner.Name
	return []gate.Event{
		{Type: gate.EventRenewed, At: now, Actor: who, LeaseID: l.ID, ExpiresAt: now.Add(100 * time.Hour)},
		{Type: gate.EventReminded, At: now, LeaseID: l.ID},
		{Type: gate.EventReleased, At: now, Actor: who, LeaseID: l.ID},
		{Type: gate.EventCompleted, At: now, Actor: who, LeaseID: l.ID},
		{Type: gate.EventExpired, At: now.Add(1000 * time.Hour), LeaseID: l.ID},
		{Type: gate.EventEvicted, At: now, Actor: "root", LeaseID: l.ID, Reason: "r"},
		{Type: gate.EventReclaimed, At: now, Actor: "coordinator", LeaseID: l.ID, Reason: "r"},
	}
}

func jsonEqual(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ja) == string(jb)
}

// TestApplyContracts maps CTR-0501..0505 and INV-0301 onto Table.Apply:
// each refused event leaves the table unchanged.
func TestApplyContracts(t *testing.T) {
	exp := t0.Add(time.Hour)
	tests := []struct {
		name  string
		event gate.Event
		want  error
	}{
		{"CTR-0501 scope already leased by another owner", grantEvent("L2", "bob", 2, fileScope("src/a.go"), time.Time{}), gate.ErrAlreadyLeased},
		{"CTR-0501 full scope over a held file", grantEvent("L2", "bob", 2, fullScope(), exp), gate.ErrAlreadyLeased},
		{"CTR-0502 INV-0301 duplicate lease id", grantEvent("L1", "bob", 2, fileScope("src/b.go"), time.Time{}), gate.ErrLeaseExists},
		{"CTR-0503 fencing token equal to the last", grantEvent("L2", "bob", 1, fileScope("src/b.go"), time.Time{}), gate.ErrTokenNotMonotone},
		{"CTR-0503 fencing token below the last", grantEvent("L2", "bob", 0, fileScope("src/b.go"), time.Time{}), gate.ErrTokenNotMonotone},
		{"CTR-0505 release by another actor", gate.Event{Type: gate.EventReleased, At: t0, Actor: "mallory", LeaseID: "L1"}, gate.ErrUnauthorized},
		{"CTR-0505 release without actor", gate.Event{Type: gate.EventReleased, At: t0, LeaseID: "L1"}, gate.ErrUnauthorized},
		{"CTR-0505 completion by another actor", gate.Event{Type: gate.EventCompleted, At: t0, Actor: "mallory", LeaseID: "L1"}, gate.ErrUnauthorized},
		{"unknown lease", gate.Event{Type: gate.EventReleased, At: t0, Actor: "alice", LeaseID: "L9"}, gate.ErrNotFound},
		{"unknown lease event type", gate.Event{Type: "lease.transferred", At: t0, LeaseID: "L1"}, gate.ErrInvalidEvent},
		{"grant without lease", gate.Event{Type: gate.EventGranted, At: t0}, gate.ErrInvalidEvent},
		{"grant without owner", grantEvent("L2", "", 2, fileScope("src/b.go"), time.Time{}), gate.ErrInvalidEvent},
		{"grant with oversize id", grantEvent(gate.LeaseID(strings.Repeat("L", gate.MaxIDLen+1)), "bob", 2, fileScope("b"), time.Time{}), gate.ErrInvalidEvent},
		{"INV-0302 grant expiring at acquisition", grantEvent("L2", "bob", 2, fileScope("src/b.go"), t0), gate.ErrInvalidEvent},
		{"INV-0302 grant expiring before acquisition", grantEvent("L2", "bob", 2, fileScope("src/b.go"), t0.Add(-time.Second)), gate.ErrInvalidEvent},
		{"eviction without reason", gate.Event{Type: gate.EventEvicted, At: t0, Actor: "root", LeaseID: "L1"}, gate.ErrInvalidEvent},
		{"reclaim without actor", gate.Event{Type: gate.EventReclaimed, At: t0, LeaseID: "L1", Reason: "dead"}, gate.ErrInvalidEvent},
		{"renewal of an auto lease", gate.Event{Type: gate.EventRenewed, At: t0, LeaseID: "L1", ExpiresAt: exp}, gate.ErrNoExtension},
		{"sequence not above the last", gate.Event{Seq: 1, Type: gate.EventNotice, At: t0}, gate.ErrSeqNotMonotone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			w.mustApply(grantEvent("L1", "alice", 1, fileScope("src/a.go"), time.Time{}))
			before := w.table.All()
			err := w.table.Apply(tt.event)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Apply(%s) = %v, want %v", tt.event.Type, err, tt.want)
			}
			if after := w.table.All(); !jsonEqual(t, before, after) || w.table.LastToken() != 1 || w.table.LastSeq() != 1 {
				t.Fatalf("refused event changed the table: %+v, was %+v", after, before)
			}
		})
	}
}

// TestApplyIgnoresOtherEvents covers INV-0503: events that are not lease
// events leave the leases alone and only advance the sequence.
func TestApplyIgnoresOtherEvents(t *testing.T) {
	w := newWorld(t)
	w.mustApply(grantEvent("L1", "alice", 1, fileScope("src/a.go"), time.Time{}))
	for _, typ := range []gate.EventType{gate.EventOwnerRegistered, gate.EventContention, gate.EventBlockerOpened, gate.EventUngatedWrite, gate.EventNotice} {
		w.mustApply(gate.Event{Type: typ, At: t0, Actor: "bob", LeaseID: "L1", Path: "src/a.go"})
	}
	if w.table.LastSeq() != 6 || w.table.ActiveCount() != 1 || w.lease("L1").State != gate.StateActive {
		t.Fatalf("after other events: seq %d, active %d; want 6, 1", w.table.LastSeq(), w.table.ActiveCount())
	}
	if err := w.table.Apply(gate.Event{Type: gate.EventNotice}); err != nil {
		t.Fatalf("Apply(event without seq) = %v, want nil", err)
	}
}

// TestExclusiveAcrossOwners covers INV-0401/0402: Apply never lets two
// owners hold overlapping active leases, whatever the scope shapes; one
// owner may hold overlapping leases of its own.
func TestExclusiveAcrossOwners(t *testing.T) {
	tests := []struct {
		name      string
		held, req gate.Scope
	}{
		{"same file", fileScope("src/a.go"), fileScope("src/a.go")},
		{"glob over file", fileScope("docs/api.md"), sparse("docs/*")},
		{"file under subtree", sparse("docs/**"), fileScope("docs/a/b.md")},
		{"subtree and its directory", sparse("docs/**"), fileScope("docs")},
		{"any-depth glob", sparse("**/*.go"), fileScope("src/x.go")},
		{"full over sparse", sparse("src/*"), fullScope()},
		{"sparse under full", fullScope(), sparse("x")},
		{"intersecting globs", sparse("a/b*"), sparse("a/*c")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			w.mustApply(grantEvent("L1", "alice", 1, tt.held, t0.Add(time.Hour)))
			if err := w.apply(grantEvent("L2", "bob", 2, tt.req, t0.Add(time.Hour))); !errors.Is(err, gate.ErrAlreadyLeased) {
				t.Fatalf("Apply(bob %v over alice %v) = %v, want %v", tt.req, tt.held, err, gate.ErrAlreadyLeased)
			}
			if w.table.ActiveCount() != 1 || w.table.LastToken() != 1 {
				t.Fatalf("refused grant counted: active %d, token %d", w.table.ActiveCount(), w.table.LastToken())
			}
			w.mustApply(grantEvent("L3", "alice", 3, tt.req, t0.Add(2*time.Hour)))
			w.mustApply(gate.Event{Type: gate.EventReleased, At: t0, Actor: "alice", LeaseID: "L1"})
			if err := w.apply(grantEvent("L4", "bob", 4, tt.req, time.Time{})); !errors.Is(err, gate.ErrAlreadyLeased) {
				t.Fatalf("Apply(bob over alice's second lease) = %v, want %v", err, gate.ErrAlreadyLeased)
			}
		})
	}
}

// TestTTLBounds covers INV-0302: expires_at is always after acquired_at;
// TTL 0 takes the default and anything outside the bounds is refused.
func TestTTLBounds(t *testing.T) {
	tests := []struct {
		name string
		kind gate.Kind
		ttl  time.Duration
		want gate.Reason
	}{
		{"zero takes the 72h default", gate.KindCheckout, 0, gate.ReasonOK},
		{"minimum", gate.KindCheckout, gate.MinCheckoutTTL, gate.ReasonOK},
		{"maximum", gate.KindCheckout, gate.MaxCheckoutTTL, gate.ReasonOK},
		{"negative", gate.KindCheckout, -time.Hour, gate.ReasonTTLOutOfBounds},
		{"one nanosecond negative", gate.KindCheckout, -time.Nanosecond, gate.ReasonTTLOutOfBounds},
		{"one nanosecond", gate.KindCheckout, time.Nanosecond, gate.ReasonTTLOutOfBounds},
		{"below minimum", gate.KindCheckout, gate.MinCheckoutTTL - time.Nanosecond, gate.ReasonTTLOutOfBounds},
		{"above maximum", gate.KindCheckout, gate.MaxCheckoutTTL + time.Nanosecond, gate.ReasonTTLOutOfBounds},
		{"auto lease with a ttl", gate.KindAuto, time.Hour, gate.ReasonTTLOutOfBounds},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			req := checkout("alice", sparse("docs/**"))
			req.Kind, req.TTL = tt.kind, tt.ttl
			d := w.decide(req, t0)
			if d.Reason != tt.want {
				t.Fatalf("Decide(ttl %s) = %s, want %s", tt.ttl, d.Reason, tt.want)
			}
			if !d.Granted {
				if !errors.Is(d.Err(), gate.ErrTTLOutOfBounds) || len(d.Events) != 0 {
					t.Fatalf("Decide(ttl %s) err %v with %d events, want %v and none", tt.ttl, d.Err(), len(d.Events), gate.ErrTTLOutOfBounds)
				}
				return
			}
			want := tt.ttl
			if want == 0 {
				want = gate.DefaultCheckoutTTL
			}
			if l := d.Events[0].Lease; !l.ExpiresAt.After(l.AcquiredAt) || l.ExpiresAt.Sub(l.AcquiredAt) != want {
				t.Fatalf("lease lives %s, want %s", l.ExpiresAt.Sub(l.AcquiredAt), want)
			}
		})
	}
}

// TestRenewBounds: a renewal obeys the same TTL bounds and must extend.
func TestRenewBounds(t *testing.T) {
	w := newWorld(t)
	l := w.grant(checkout("alice", sparse("docs/**")), t0)
	for _, c := range []struct {
		ttl  time.Duration
		want gate.Reason
	}{
		{-time.Minute, gate.ReasonTTLOutOfBounds},
		{gate.MaxCheckoutTTL + 1, gate.ReasonTTLOutOfBounds},
		{time.Hour, gate.ReasonTTLOutOfBounds}, // would shorten the lease
		{72 * time.Hour, gate.ReasonOK},
	} {
		req := on(gate.OpRenew, "alice", l)
		req.TTL = c.ttl
		if d := gate.Decide(req, w.table, t0.Add(time.Minute)); d.Reason != c.want {
			t.Errorf("Decide(renew %s) = %s, want %s", c.ttl, d.Reason, c.want)
		}
	}
	auto := w.grant(write("alice", "x.go"), t0)
	if d := gate.Decide(on(gate.OpRenew, "alice", auto), w.table, t0); d.Reason != gate.ReasonInputInvalid {
		t.Errorf("Decide(renew auto lease) = %s, want %s", d.Reason, gate.ReasonInputInvalid)
	}
}

// TestRenewalCountSaturates covers INV-0303.
func TestRenewalCountSaturates(t *testing.T) {
	w := newWorld(t)
	g := grantEvent("L1", "alice", 1, sparse("docs/**"), t0.Add(time.Hour))
	g.Lease.RenewalCount = math.MaxUint32 - 1
	w.mustApply(g)
	for i, want := range []uint32{math.MaxUint32, math.MaxUint32, math.MaxUint32} {
		w.mustApply(gate.Event{Type: gate.EventRenewed, At: t0, Actor: "alice", LeaseID: "L1", ExpiresAt: t0.Add(time.Duration(i+2) * time.Hour)})
		if got := w.lease("L1").RenewalCount; got != want {
			t.Fatalf("RenewalCount after renewal %d = %d, want %d", i+1, got, want)
		}
	}
	if err := w.apply(gate.Event{Type: gate.EventRenewed, At: t0, LeaseID: "L1", ExpiresAt: t0.Add(4 * time.Hour)}); !errors.Is(err, gate.ErrNoExtension) {
		t.Fatalf("Apply(renewal to the same expiry) = %v, want %v", err, gate.ErrNoExtension)
	}
}

// TestAttackMitigations covers the three attacks of seed 001 and INV-0304.
func TestAttackMitigations(t *testing.T) {
	exp := t0.Add(time.Hour)
	t.Run("early expiration", func(t *testing.T) {
		w := newWorld(t)
		w.mustApply(grantEvent("L1", "alice", 1, sparse("docs/**"), exp))
		for _, at := range []time.Time{t0, exp.Add(-time.Nanosecond)} {
			if err := w.apply(gate.Event{Type: gate.EventExpired, At: at, LeaseID: "L1"}); !errors.Is(err, gate.ErrEarlyExpiry) {
				t.Fatalf("Apply(expired at %s) = %v, want %v", at, err, gate.ErrEarlyExpiry)
			}
		}
		w.mustApply(grantEvent("L2", "bob", 2, fileScope("x.go"), time.Time{}))
		if err := w.apply(gate.Event{Type: gate.EventExpired, At: exp.Add(1000 * time.Hour), LeaseID: "L2"}); !errors.Is(err, gate.ErrEarlyExpiry) {
			t.Fatalf("Apply(expired on an auto lease) = %v, want %v", err, gate.ErrEarlyExpiry)
		}
		w.mustApply(gate.Event{Type: gate.EventExpired, At: exp, LeaseID: "L1"})
	})
	t.Run("unauthorized release", func(t *testing.T) {
		w := newWorld(t)
		l := w.grant(checkout("alice", sparse("docs/**")), t0)
		if d := gate.Decide(on(gate.OpRelease, "mallory", l), w.table, t0); d.Reason != gate.ReasonOwnerMismatch {
			t.Fatalf("Decide(release by mallory) = %s, want %s", d.Reason, gate.ReasonOwnerMismatch)
		}
		if err := w.apply(gate.Event{Type: gate.EventReleased, At: t0, Actor: "mallory", LeaseID: l.ID}); !errors.Is(err, gate.ErrUnauthorized) {
			t.Fatalf("Apply(release by mallory) = %v, want %v", err, gate.ErrUnauthorized)
		}
		if w.lease(l.ID).State != gate.StateActive {
			t.Fatalf("lease released by a non-holder")
		}
	})
	t.Run("pruning evasion", func(t *testing.T) {
		w := newWorld(t)
		w.mustApply(grantEvent("L1", "alice", 1, sparse("docs/**"), exp))
		late := exp.Add(100 * 24 * time.Hour)
		w.mustApply(gate.Event{Type: gate.EventExpired, At: late, LeaseID: "L1"})
		if got := w.lease("L1").TerminatedAt; !got.Equal(exp) {
			t.Fatalf("TerminatedAt = %s, want the lease's expires_at %s, not the event's %s (INV-0304)", got, exp, late)
		}
		if n := w.table.Prune(exp); n != 0 {
			t.Fatalf("Prune(expires_at) = %d, want 0", n)
		}
		if n := w.table.Prune(exp.Add(time.Nanosecond)); n != 1 {
			t.Fatalf("Prune(expires_at+1ns) = %d, want 1: a late expiry event must not keep the lease around", n)
		}
	})
}

// TestPrune covers CTR-0402/0403: only terminal leases go, compared by
// TerminatedAt.
func TestPrune(t *testing.T) {
	w := newWorld(t)
	old := w.grant(write("alice", "old.go"), t0)
	gone := w.grant(write("bob", "gone.go"), t0)
	recent := w.grant(write("carol", "recent.go"), t0)
	w.grant(on(gate.OpRelease, "bob", gone), t0.Add(time.Hour))
	w.grant(on(gate.OpRelease, "carol", recent), t0.Add(3*time.Hour))
	if n := w.table.Prune(t0.Add(time.Hour)); n != 0 {
		t.Fatalf("Prune(end of first release) = %d, want 0 (strictly before)", n)
	}
	if n := w.table.Prune(t0.Add(2 * time.Hour)); n != 1 {
		t.Fatalf("Prune(T+2h) = %d, want 1", n)
	}
	if _, ok := w.table.Lease(gone.ID); ok {
		t.Fatalf("Lease(%s) found after Prune", gone.ID)
	}
	if n := w.table.Prune(t0.Add(1000 * time.Hour)); n != 1 {
		t.Fatalf("Prune(far future) = %d, want 1 (the active lease stays)", n)
	}
	if w.table.Len() != 1 || w.table.ActiveCount() != 1 || w.lease(old.ID).State != gate.StateActive {
		t.Fatalf("after Prune: len %d active %d, want the active lease only", w.table.Len(), w.table.ActiveCount())
	}
	if got := w.table.ByOwner("bob"); len(got) != 0 {
		t.Fatalf("ByOwner(bob) = %v after Prune, want none", got)
	}
}

// TestHolderOpsFailClosed: renew, release, validate and checkin are owner-
// and token-gated and refuse anything malformed, without events.
func TestHolderOpsFailClosed(t *testing.T) {
	w := newWorld(t)
	l := w.grant(checkout("alice", sparse("docs/**")), t0)
	tests := []struct {
		name string
		edit func(*gate.Request)
		want gate.Reason
	}{
		{"wrong token", func(r *gate.Request) { r.Token++ }, gate.ReasonTokenInvalid},
		{"zero token", func(r *gate.Request) { r.Token = 0 }, gate.ReasonTokenInvalid},
		{"wrong owner", func(r *gate.Request) { r.Owner.Name = "bob" }, gate.ReasonOwnerMismatch},
		{"unknown id", func(r *gate.Request) { r.LeaseID = "01JNOSUCHLEASE000000000000" }, gate.ReasonNotFound},
		{"empty id", func(r *gate.Request) { r.LeaseID = "" }, gate.ReasonInputInvalid},
		{"oversize id", func(r *gate.Request) { r.LeaseID = gate.LeaseID(strings.Repeat("a", 129)) }, gate.ReasonInputInvalid},
		{"id with a slash", func(r *gate.Request) { r.LeaseID = "../etc" }, gate.ReasonInputInvalid},
		{"empty owner", func(r *gate.Request) { r.Owner.Name = "" }, gate.ReasonInputInvalid},
		{"oversize owner", func(r *gate.Request) { r.Owner.Name = strings.Repeat("b", 129) }, gate.ReasonInputInvalid},
		{"owner with a space", func(r *gate.Request) { r.Owner.Name = "ali ce" }, gate.ReasonInputInvalid},
	}
	for _, op := range []gate.Op{gate.OpRenew, gate.OpRelease, gate.OpValidate, gate.OpCheckin} {
		for _, tt := range tests {
			t.Run(string(op)+"/"+tt.name, func(t *testing.T) {
				req := on(op, "alice", l)
				tt.edit(&req)
				d := gate.Decide(req, w.table, t0.Add(time.Hour))
				if d.Granted || d.Reason != tt.want || len(d.Events) != 0 {
					t.Fatalf("Decide(%s %s) = %s with %d events, want %s and none", op, tt.name, d.Reason, len(d.Events), tt.want)
				}
			})
		}
	}
	if got := w.lease(l.ID); got.State != gate.StateActive {
		t.Fatalf("lease = %s after refused operations, want active", got.State)
	}
}

// TestMonotonicExpiry covers INV-0305.
//
// What Go does: time.Now() carries a wall reading and a monotonic reading;
// t.Add keeps both and shifts both. When both operands of Before, After,
// Equal or Sub carry a monotonic reading, only the monotonic readings are
// compared, so a step of the wall clock between two readings of one process
// changes nothing. If either operand lacks one (t.Round(0), a time decoded
// from JSON or the ledger, time.Date), the wall readings are compared. So a
// lease granted with now = time.Now() in the coordinator gets an ExpiresAt
// with a monotonic reading, and Expired(time.Now()) is immune to wall-clock
// jumps; after a restart the persisted ExpiresAt is wall-clock UTC only.
//
// The time API cannot build a Time whose two readings disagree (only the
// real clock can), so the test checks the parts that are observable: both
// readings are present and kept by the table, the boundary is exact with
// them, and stripping the monotonic reading gives wall-clock behaviour.
func TestMonotonicExpiry(t *testing.T) {
	start := time.Now()
	w := newWorld(t)
	req := checkout("alice", sparse("docs/**"))
	req.TTL = time.Hour
	l := w.grant(req, start)
	if !hasMonotonic(start) || !hasMonotonic(l.ExpiresAt) {
		t.Fatalf("ExpiresAt %q has no monotonic reading; want it kept from now %q", l.ExpiresAt, start)
	}
	tests := []struct {
		name string
		now  time.Time
		want bool
	}{
		{"monotonic, 1ns before", start.Add(time.Hour - time.Nanosecond), false},
		{"monotonic, at expiry", start.Add(time.Hour), true},
		{"wall only, 1ns before", start.Add(time.Hour - time.Nanosecond).Round(0), false},
		{"wall only, at expiry", start.Add(time.Hour).Round(0), true},
		{"wall only, in another zone", start.Add(time.Hour).Round(0).In(time.FixedZone("X", 5*3600)), true},
	}
	for _, tt := range tests {
		if got := l.Expired(tt.now); got != tt.want {
			t.Errorf("Expired(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
	var persisted gate.Lease
	b, _ := json.Marshal(l)
	if err := json.Unmarshal(b, &persisted); err != nil {
		t.Fatal(err)
	}
	if hasMonotonic(persisted.ExpiresAt) || !persisted.ExpiresAt.Equal(l.ExpiresAt) {
		t.Fatalf("persisted ExpiresAt = %q, want the same instant without a monotonic reading", persisted.ExpiresAt)
	}
}

func hasMonotonic(t time.Time) bool { return strings.Contains(t.String(), " m=") }
