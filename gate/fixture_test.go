package gate_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

var seedFlag = flag.Uint64("seed", 0, "seed of the randomized tests (0: taken from the clock and logged)")

// t0 is the fixed "now" every scenario starts from.
var t0 = time.Date(2025, time.March, 3, 9, 0, 0, 0, time.UTC)

// testRand returns a generator seeded by -seed or the clock, and logs the
// seed so that a failure can be replayed.
func testRand(tb testing.TB) *rand.Rand {
	tb.Helper()
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	tb.Logf("seed %d (rerun with -seed %d)", seed, seed)
	return rand.New(rand.NewPCG(seed, 0x1ea5e))
}

// world is a lease table with the ledger that built it: what the
// coordinator does around gate, minus the I/O.
type world struct {
	tb    testing.TB
	table *gate.Table
	seq   uint64
	ids   int
	log   []gate.Event
}

func newWorld(tb testing.TB) *world { return &world{tb: tb, table: gate.NewTable()} }

// nextID returns a ULID-shaped (26 character) lease id unique in the world.
func (w *world) nextID() gate.LeaseID {
	w.ids++
	return gate.LeaseID(fmt.Sprintf("01JLEASE%018d", w.ids))
}

// apply stamps e with the next sequence number and folds it into the table.
// The ledger keeps only events the table accepts.
func (w *world) apply(e gate.Event) error {
	e.Seq = w.seq + 1
	if err := w.table.Apply(e); err != nil {
		return err
	}
	w.seq = e.Seq
	w.log = append(w.log, e)
	return nil
}

func (w *world) mustApply(e gate.Event) {
	w.tb.Helper()
	if err := w.apply(e); err != nil {
		w.tb.Fatalf("Apply(%s %s) = %v, want nil", e.Type, e.LeaseID, err)
	}
}

// decide runs Decide at now, names the new grants and applies the events.
func (w *world) decide(req gate.Request, now time.Time) gate.Decision {
	w.tb.Helper()
	d := gate.Decide(req, w.table, now)
	for i := range d.Events {
		e := &d.Events[i]
		if e.Type == gate.EventGranted {
			e.Lease.ID = w.nextID()
		}
		w.mustApply(*e)
	}
	return d
}

// grant is decide that fails the test unless the request is granted; it
// returns the table's copy of the last lease granted, if any.
func (w *world) grant(req gate.Request, now time.Time) gate.Lease {
	w.tb.Helper()
	d := w.decide(req, now)
	if !d.Granted {
		w.tb.Fatalf("Decide(%s %s %v) = %s (%s), want granted", req.Op, req.Owner.Name, req.Scope, d.Reason, d.Message)
	}
	for i := len(d.Events) - 1; i >= 0; i-- {
		if d.Events[i].Type == gate.EventGranted {
			return w.lease(d.Events[i].Lease.ID)
		}
	}
	if d.Lease != nil {
		return w.lease(d.Lease.ID)
	}
	return gate.Lease{}
}

func (w *world) lease(id gate.LeaseID) gate.Lease {
	w.tb.Helper()
	l, ok := w.table.Lease(id)
	if !ok {
		w.tb.Fatalf("Lease(%s) not found", id)
	}
	return l
}

// grantEvent is a hand-made grant, as a ledger would hold it.
func grantEvent(id gate.LeaseID, owner string, token uint64, s gate.Scope, expires time.Time) gate.Event {
	l := &gate.Lease{ID: id, Owner: gate.Owner{Name: owner}, Kind: gate.KindAuto, Scope: s, State: gate.StateActive,
		FencingToken: token, AcquiredAt: t0, LastHeartbeatAt: t0, ExpiresAt: expires}
	if !expires.IsZero() {
		l.Kind = gate.KindCheckout
	}
	return gate.Event{Type: gate.EventGranted, At: t0, Actor: owner, Lease: l}
}

func fullScope() gate.Scope                { return gate.Scope{Type: gate.ScopeFull} }
func sparse(paths ...string) gate.Scope    { return gate.Scope{Type: gate.ScopeSparse, Paths: paths} }
func fileScope(paths ...string) gate.Scope { return gate.Scope{Type: gate.ScopeFile, Paths: paths} }

func owner(name string) gate.Owner {
	return gate.Owner{Name: name, Host: "ws1", PID: 4242, StartTime: 1700000000000}
}

// checkout asks for an explicit check-out lease with the default TTL.
func checkout(name string, s gate.Scope) gate.Request {
	return gate.Request{Op: gate.OpAcquire, Owner: owner(name), Kind: gate.KindCheckout, Scope: s}
}

// write asks for the auto leases a gated mutation of paths needs.
func write(name string, paths ...string) gate.Request {
	return gate.Request{Op: gate.OpAcquire, Owner: owner(name), Kind: gate.KindAuto, Scope: fileScope(paths...)}
}

// on asks op of lease l as name, with l's fencing token.
func on(op gate.Op, name string, l gate.Lease) gate.Request {
	return gate.Request{Op: op, Owner: owner(name), LeaseID: l.ID, Token: l.FencingToken}
}

func evict(admin string, l gate.Lease, reason string) gate.Request {
	return gate.Request{Op: gate.OpEvict, Owner: owner(admin), Admin: admin, LeaseID: l.ID, Reason: reason}
}

// scopesOverlap is the brute-force definition of two scopes conflicting.
func scopesOverlap(a, b gate.Scope) bool { return scopesOverlapUnder(gate.ExactCase, a, b) }

// scopesOverlapUnder is scopesOverlap with names compared under f.
func scopesOverlapUnder(f gate.Folding, a, b gate.Scope) bool {
	if a.Type == gate.ScopeFull || b.Type == gate.ScopeFull {
		return true
	}
	for _, p := range a.Paths {
		for _, q := range b.Paths {
			if f.Overlap(p, q) {
				return true
			}
		}
	}
	return false
}

// checkExclusive fails if two active leases of different owners overlap,
// with names compared under f.
func checkExclusive(tb testing.TB, t *gate.Table, f gate.Folding) {
	tb.Helper()
	act := t.Active()
	for i := range act {
		for j := i + 1; j < len(act); j++ {
			a, b := act[i], act[j]
			if a.Owner.Name != b.Owner.Name && scopesOverlapUnder(f, a.Scope, b.Scope) {
				tb.Fatalf("active leases %s (%s %v) and %s (%s %v) overlap", a.ID, a.Owner.Name, a.Scope, b.ID, b.Owner.Name, b.Scope)
			}
		}
	}
}
