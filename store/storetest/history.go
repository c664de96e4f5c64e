package storetest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/leasegate/leasegate/gate"
)

var (
	histOwners = []string{"alice", "bob", "carol", "dave"}
	histFiles  = []string{"src/a.go", "src/a_test.go", "src/b.go", "docs/api.md", "docs/guide/intro.md", "README.md", "lib/x.ts", "tests/x.test.ts"}
	histGlobs  = []string{"docs/**", "docs/*", "src/*.go", "**/*.md", "lib/**", "tests/**", "src/**"}
)

// history generates random but valid ledger traffic, one coordinator step
// at a time. Every lease event comes from gate.Decide on the live table or
// is what the coordinator's sweeps append (expiry at or after expires_at,
// reclaim and eviction with actor and reason, one reminder), so a ledger of
// its events always replays.
type history struct {
	r     *rand.Rand
	table *gate.Table // the live table: committed events applied as they come back
	now   time.Time
	ids   int
}

func newHistory(r *rand.Rand) *history {
	return &history{r: r, table: gate.NewTable(), now: t0}
}

// step advances the clock and returns the events of one decision or sweep,
// possibly none (a denial appends nothing).
func (h *history) step() []gate.Event {
	h.now = h.now.Add(time.Duration(h.r.IntN(90)) * time.Minute)
	who := histOwners[h.r.IntN(len(histOwners))]
	switch n := h.r.IntN(13); {
	case n < 3:
		return h.decide(gate.Request{Op: gate.OpAcquire, Owner: owner(who), Kind: gate.KindAuto, Scope: h.files()})
	case n < 5:
		return h.decide(h.checkout(who))
	case n < 8:
		return h.holderOp()
	case n < 9:
		return h.expire()
	case n < 10:
		return h.reclaim(who)
	case n < 11:
		return h.remind()
	}
	return []gate.Event{h.other(who)}
}

func owner(name string) gate.Owner {
	return gate.Owner{Name: name, Host: "host-1", PID: 1000 + len(name), StartTime: t0.UnixMilli()}
}

// decide runs req through gate.Decide and fills in the ids of new leases.
func (h *history) decide(req gate.Request) []gate.Event {
	d := gate.Decide(req, h.table, h.now)
	for _, e := range d.Events {
		if e.Type == gate.EventGranted {
			h.ids++
			e.Lease.ID = gate.LeaseID(fmt.Sprintf("01JLEASE%018d", h.ids))
		}
	}
	return d.Events
}

func (h *history) files() gate.Scope {
	paths := []string{histFiles[h.r.IntN(len(histFiles))]}
	if p := histFiles[h.r.IntN(len(histFiles))]; p != paths[0] && h.r.IntN(2) == 0 {
		paths = append(paths, p)
	}
	return gate.Scope{Type: gate.ScopeFile, Paths: paths}
}

func (h *history) checkout(who string) gate.Request {
	sc := gate.Scope{Type: gate.ScopeSparse, Paths: []string{histGlobs[h.r.IntN(len(histGlobs))]}}
	if h.r.IntN(10) == 0 {
		sc = gate.Scope{Type: gate.ScopeFull}
	}
	ttl := time.Duration(1+h.r.IntN(360)) * time.Minute
	return gate.Request{Op: gate.OpAcquire, Owner: owner(who), Kind: gate.KindCheckout, Scope: sc, TTL: ttl}
}

// holderOp releases, checks in, renews or evicts a random active lease as
// its holder (or an admin), with its token. A renewal is aimed at a live
// check-out lease, the only kind that renews, so that every history makes
// some; its TTL is still random and may be refused.
func (h *history) holderOp() []gate.Event {
	op := h.r.IntN(4)
	keep := func(gate.Lease) bool { return true }
	if op == 2 {
		keep = func(l gate.Lease) bool { return l.Kind == gate.KindCheckout && l.Live(h.now) }
	}
	l, ok := h.pick(keep)
	if !ok {
		return nil
	}
	req := gate.Request{Owner: owner(l.Owner.Name), LeaseID: l.ID, Token: l.FencingToken}
	switch op {
	case 0:
		req.Op = gate.OpRelease
	case 1:
		req.Op = gate.OpCheckin
	case 2:
		req.Op, req.TTL = gate.OpRenew, time.Duration(1+h.r.IntN(400))*time.Minute
	default:
		req = gate.Request{Op: gate.OpEvict, Owner: owner("root"), Admin: "root", LeaseID: l.ID, Reason: "maintenance window"}
	}
	return h.decide(req)
}

// expire is the minute sweep: every lease past its TTL expires, recorded
// at the sweep's time or exactly at expires_at.
func (h *history) expire() []gate.Event {
	var evs []gate.Event
	for _, l := range h.table.Active() {
		if l.Expired(h.now) {
			at := h.now
			if h.r.IntN(2) == 0 {
				at = l.ExpiresAt
			}
			evs = append(evs, gate.Event{Type: gate.EventExpired, At: at, Actor: "coordinator", LeaseID: l.ID, Reason: "ttl elapsed"})
		}
	}
	return evs
}

// reclaim ends the auto leases of an owner found dead, with evidence.
func (h *history) reclaim(who string) []gate.Event {
	var evs []gate.Event
	for _, l := range h.table.ByOwner(who) {
		if l.Kind == gate.KindAuto {
			evs = append(evs, gate.Event{Type: gate.EventReclaimed, At: h.now, Actor: "coordinator", LeaseID: l.ID,
				Reason: "owner dead", Data: json.RawMessage(`{"pid":1004,"gone":true}`)})
		}
	}
	return evs
}

// remind sends the one reminder of a live check-out lease near its expiry.
func (h *history) remind() []gate.Event {
	l, ok := h.pick(func(l gate.Lease) bool {
		return l.Kind == gate.KindCheckout && !l.ReminderSent && l.Live(h.now) && l.Remaining(h.now) <= gate.DefaultRemindBefore
	})
	if !ok {
		return nil
	}
	return []gate.Event{{Type: gate.EventReminded, At: h.now, Actor: "coordinator", LeaseID: l.ID}}
}

// other is an event the lease table ignores but the ledger keeps.
func (h *history) other(who string) gate.Event {
	types := []gate.EventType{gate.EventContention, gate.EventOwnerRegistered, gate.EventNotice, gate.EventUngatedWrite, gate.EventBlockerOpened}
	return gate.Event{Type: types[h.r.IntN(len(types))], At: h.now, Actor: who,
		Path: histFiles[h.r.IntN(len(histFiles))], Data: json.RawMessage(`{"n":` + fmt.Sprint(h.r.IntN(1000)) + `}`)}
}

// pick returns a random active lease that keep accepts.
func (h *history) pick(keep func(gate.Lease) bool) (gate.Lease, bool) {
	var ls []gate.Lease
	for _, l := range h.table.Active() {
		if keep(l) {
			ls = append(ls, l)
		}
	}
	if len(ls) == 0 {
		return gate.Lease{}, false
	}
	return ls[h.r.IntN(len(ls))], true
}
