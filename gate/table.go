package gate

import (
	"errors"
	"fmt"
	"sort"
	"time"
)

// Errors returned by Table.Apply for events that would break an invariant.
// A store never appends such an event; on replay they mean a corrupt ledger.
var (
	ErrLeaseExists      = errors.New("lease id already exists")
	ErrAlreadyLeased    = errors.New("scope already leased by another owner")
	ErrUnauthorized     = errors.New("actor is not the lease holder")
	ErrEarlyExpiry      = errors.New("expiry before the lease's expires_at")
	ErrTokenNotMonotone = errors.New("fencing token not above the last one")
	ErrInvalidEvent     = errors.New("invalid event")
	ErrSeqNotMonotone   = errors.New("event sequence not above the last one")
	ErrNoExtension      = errors.New("renewal does not extend the lease")
	ErrAlreadyReminded  = errors.New("reminder already sent")
)

// Table is the lease table: the projection of the ledger's lease events.
// Apply is deterministic, so replaying the same events gives the same
// table. A Table is not safe for concurrent use; the coordinator serializes
// access.
type Table struct {
	leases    map[LeaseID]*Lease
	index     *Index
	byOwner   map[string]map[LeaseID]struct{}
	active    int
	lastToken uint64
	lastSeq   uint64
}

// NewTable returns an empty table.
func NewTable() *Table {
	return &Table{
		leases:  make(map[LeaseID]*Lease),
		index:   NewIndex(),
		byOwner: make(map[string]map[LeaseID]struct{}),
	}
}

// Apply folds one event into the table. Events that are not lease events are
// ignored (only their Seq is tracked). An event that would break an
// invariant is refused with an error and leaves the table unchanged.
func (t *Table) Apply(e Event) error {
	if e.Seq != 0 && e.Seq <= t.lastSeq {
		return fmt.Errorf("apply %s seq %d after %d: %w", e.Type, e.Seq, t.lastSeq, ErrSeqNotMonotone)
	}
	if err := t.apply(&e); err != nil {
		return fmt.Errorf("apply %s %s: %w", e.Type, e.LeaseID, err)
	}
	if e.Seq != 0 {
		t.lastSeq = e.Seq
	}
	return nil
}

func (t *Table) apply(e *Event) error {
	switch e.Type {
	case EventGranted:
		return t.grant(e)
	case EventRenewed:
		return t.renew(e)
	case EventReminded:
		return t.remind(e)
	case EventReleased, EventCompleted, EventExpired, EventEvicted, EventReclaimed:
		return t.end(e)
	}
	if e.IsLease() {
		return fmt.Errorf("unknown lease event: %w", ErrInvalidEvent)
	}
	return nil
}

func (t *Table) grant(e *Event) error {
	l := e.Lease
	switch {
	case l == nil || l.ID == NoLease || len(l.ID) > MaxIDLen || l.Owner.Name == "":
		return fmt.Errorf("grant without lease id or owner: %w", ErrInvalidEvent)
	case l.State != StateActive:
		return fmt.Errorf("grant in state %s: %w", l.State, ErrInvalidEvent)
	case t.leases[l.ID] != nil:
		return ErrLeaseExists
	case l.FencingToken <= t.lastToken:
		return fmt.Errorf("token %d after %d: %w", l.FencingToken, t.lastToken, ErrTokenNotMonotone)
	case !l.ExpiresAt.IsZero() && !l.ExpiresAt.After(l.AcquiredAt):
		return fmt.Errorf("expires_at not after acquired_at: %w", ErrInvalidEvent)
	}
	if h := t.heldByOther(l); h != nil {
		return fmt.Errorf("%w: %s holds %s", ErrAlreadyLeased, h.Owner.Name, h.ID)
	}
	c := cloneLease(l)
	t.leases[c.ID] = c
	t.index.Add(c.ID, c.Scope)
	t.own(c)
	t.active++
	t.lastToken = c.FencingToken
	return nil
}

// heldByOther returns an active lease of another owner overlapping l.
func (t *Table) heldByOther(l *Lease) *Lease {
	for _, o := range t.overlapping(l.Scope) {
		if !o.HeldBy(l.Owner.Name) {
			return o
		}
	}
	return nil
}

func (t *Table) renew(e *Event) error {
	l, err := t.activeLease(e.LeaseID)
	if err != nil {
		return err
	}
	if l.ExpiresAt.IsZero() || !e.ExpiresAt.After(l.ExpiresAt) {
		return ErrNoExtension
	}
	if l.Expired(e.At) {
		return fmt.Errorf("renewal at %s after expiry: %w", e.At.UTC().Format(time.RFC3339), ErrExpired) // no grace period
	}
	l.ExpiresAt = e.ExpiresAt
	l.ReminderSent = false
	l.LastHeartbeatAt = e.At
	if l.RenewalCount < ^uint32(0) {
		l.RenewalCount++ // saturating (INV-0303)
	}
	return nil
}

func (t *Table) remind(e *Event) error {
	l, err := t.activeLease(e.LeaseID)
	if err != nil {
		return err
	}
	if l.ReminderSent {
		return ErrAlreadyReminded
	}
	if l.Expired(e.At) {
		return fmt.Errorf("reminder after expiry: %w", ErrExpired)
	}
	l.ReminderSent = true
	return nil
}

func (t *Table) end(e *Event) error {
	l, err := t.activeLease(e.LeaseID)
	if err != nil {
		return err
	}
	end := e.At
	switch e.Type {
	case EventReleased, EventCompleted:
		if e.Actor != l.Owner.Name {
			return ErrUnauthorized // unauthorized release attack
		}
	case EventExpired:
		if l.ExpiresAt.IsZero() || e.At.Before(l.ExpiresAt) {
			return ErrEarlyExpiry // early expiration attack
		}
		end = l.ExpiresAt // pruning evasion: never the event's own time (INV-0304)
	case EventEvicted, EventReclaimed:
		if e.Actor == "" || e.Reason == "" {
			return fmt.Errorf("%s without actor and reason: %w", e.Type, ErrInvalidEvent)
		}
	}
	l.State = endState[e.Type]
	l.ReleaseReason = e.Reason
	l.EndedBy = e.Actor
	l.TerminatedAt = end
	t.index.Remove(l.ID, l.Scope)
	t.active--
	return nil
}

var endState = map[EventType]State{
	EventReleased:  StateReleased,
	EventCompleted: StateCompleted,
	EventExpired:   StateExpired,
	EventEvicted:   StateEvicted,
	EventReclaimed: StateReclaimed,
}

func (t *Table) activeLease(id LeaseID) (*Lease, error) {
	l := t.leases[id]
	if l == nil {
		return nil, ErrNotFound
	}
	if l.State.Terminal() {
		return nil, fmt.Errorf("lease is %s: %w", l.State, ErrTerminal)
	}
	return l, nil
}

func (t *Table) own(l *Lease) {
	m := t.byOwner[l.Owner.Name]
	if m == nil {
		m = make(map[LeaseID]struct{})
		t.byOwner[l.Owner.Name] = m
	}
	m[l.ID] = struct{}{}
}

// Lease returns a copy of the lease with id.
func (t *Table) Lease(id LeaseID) (Lease, bool) {
	l := t.leases[id]
	if l == nil {
		return Lease{}, false
	}
	return *cloneLease(l), true
}

// Overlapping returns the active leases overlapping a scope, sorted by
// fencing token (oldest grant first), each once.
func (t *Table) Overlapping(s Scope) []Lease {
	ls := t.overlapping(s)
	out := make([]Lease, len(ls))
	for i, l := range ls {
		out[i] = *cloneLease(l)
	}
	return out
}

func (t *Table) overlapping(s Scope) []*Lease {
	seen := make(map[LeaseID]struct{})
	var out []*Lease
	visit := func(id LeaseID, _ string) bool {
		if _, ok := seen[id]; !ok {
			seen[id] = struct{}{}
			out = append(out, t.leases[id])
		}
		return true
	}
	if s.Type == ScopeFull {
		t.index.Visit("", true, visit)
	}
	for _, p := range s.Paths {
		t.index.Visit(p, false, visit)
	}
	sortByToken(out)
	return out
}

// Active returns every active lease sorted by fencing token.
func (t *Table) Active() []Lease { return t.filter(func(l *Lease) bool { return !l.State.Terminal() }) }

// All returns every lease the table remembers, sorted by fencing token.
func (t *Table) All() []Lease { return t.filter(func(*Lease) bool { return true }) }

// ByOwner returns the active leases of owner name.
func (t *Table) ByOwner(name string) []Lease {
	var ls []*Lease
	for id := range t.byOwner[name] {
		if l := t.leases[id]; l != nil && !l.State.Terminal() {
			ls = append(ls, l)
		}
	}
	sortByToken(ls)
	out := make([]Lease, len(ls))
	for i, l := range ls {
		out[i] = *cloneLease(l)
	}
	return out
}

func (t *Table) filter(keep func(*Lease) bool) []Lease {
	var ls []*Lease
	for _, l := range t.leases {
		if keep(l) {
			ls = append(ls, l)
		}
	}
	sortByToken(ls)
	out := make([]Lease, len(ls))
	for i, l := range ls {
		out[i] = *cloneLease(l)
	}
	return out
}

// ActiveCount is the number of active leases.
func (t *Table) ActiveCount() int { return t.active }

// Len is the number of leases remembered, terminal ones included.
func (t *Table) Len() int { return len(t.leases) }

// LastToken is the highest fencing token granted.
func (t *Table) LastToken() uint64 { return t.lastToken }

// LastSeq is the sequence number of the last event applied.
func (t *Table) LastSeq() uint64 { return t.lastSeq }

// Prune forgets terminal leases that ended before before, by TerminatedAt
// (never the time of the event that ended them). Active leases are never
// pruned. It returns how many it forgot.
func (t *Table) Prune(before time.Time) int {
	n := 0
	for id, l := range t.leases {
		if l.State.Terminal() && l.TerminatedAt.Before(before) {
			delete(t.leases, id)
			delete(t.byOwner[l.Owner.Name], id)
			n++
		}
	}
	return n
}

func sortByToken(ls []*Lease) {
	sort.Slice(ls, func(i, j int) bool { return ls[i].FencingToken < ls[j].FencingToken })
}

func cloneLease(l *Lease) *Lease {
	c := *l
	c.Scope.Paths = append([]string(nil), l.Scope.Paths...)
	return &c
}
