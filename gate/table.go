package gate

import (
	"errors"
	"fmt"
	"slices"
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
//
// Leases are kept as compact records in slots of fixed-size chunks (see
// record): a table of many leases holds little more than their ids and
// paths.
type Table struct {
	chunks    []*[chunkLen]record
	used      int32   // slots handed out, free ones included
	free      []int32 // slots of pruned leases, for reuse
	ids       idIndex
	index     *trie   // the paths of active leases, by ref(slot, path)
	full      []int32 // active full-scope leases
	holders   map[Owner]*holder
	groups    map[string]*ownerGroup
	endings   []ending
	live      []int32             // the slots of active leases, in no order
	files     map[int32][]File    // the file identities of the leases that record any, by slot
	byFile    map[fileKey][]int32 // the active leases recording each file identity
	lastToken uint64
	lastSeq   uint64
}

// NewTable returns an empty table that tells names apart by every byte.
func NewTable() *Table { return NewTableFor(ExactCase) }

// NewTableFor returns an empty table that compares names under f: with
// FoldCase or FoldNormalization, two spellings of one path are one path
// to Overlapping and Decide (see Folding).
func NewTableFor(f Folding) *Table {
	t := &Table{
		holders: make(map[Owner]*holder),
		groups:  make(map[string]*ownerGroup),
		files:   make(map[int32][]File),
		byFile:  make(map[fileKey][]int32),
	}
	t.index = newTrie(t.pattern, f)
	return t
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
	switch {
	case e.Type == EventGranted:
		return t.grant(e)
	case e.Type == EventRenewed:
		return t.renew(e)
	case e.Type == EventReminded:
		return t.remind(e)
	case e.Type == EventNarrowed:
		return t.narrow(e)
	case e.Type.EndsLease():
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
	case t.has(l.ID):
		return ErrLeaseExists
	case l.FencingToken <= t.lastToken:
		return fmt.Errorf("token %d after %d: %w", l.FencingToken, t.lastToken, ErrTokenNotMonotone)
	case !l.ExpiresAt.IsZero() && !l.ExpiresAt.After(l.AcquiredAt):
		return fmt.Errorf("expires_at not after acquired_at: %w", ErrInvalidEvent)
	}
	if h := t.heldByOther(l); h != nil {
		return fmt.Errorf("%w: %s holds %s", ErrAlreadyLeased, h.holder.owner.Name, h.leaseID())
	}
	s := t.add(l)
	t.addLive(s)
	if l.Scope.Type == ScopeFull {
		t.full = append(t.full, s)
	} else {
		for i, p := range l.Scope.Paths {
			t.index.add(refOf(s, i), p)
		}
	}
	t.indexFiles(s, l.Scope.Files)
	t.lastToken = l.FencingToken
	return nil
}

// heldByOther returns the active lease of another owner overlapping l with
// the lowest fencing token, or nil. Under a folding a lease whose paths
// overlap l's only with names folded does not count: a coordinator that
// told names apart by case or normalization granted it (one on a case-sensitive volume
// sharing the ledger, or one from before the table folded), and the table
// keeps what the ledger holds rather than refusing the ledger. Decide
// still refuses any new grant overlapping either lease.
func (t *Table) heldByOther(l *Lease) *record {
	var h *record
	t.visit(l.Scope, func(s int32) bool {
		r := t.rec(s)
		if r.holder.owner.Name != l.Owner.Name && (h == nil || r.token < h.token) && (t.index.fold == ExactCase || t.overlapsExactly(s, l)) {
			h = r
		}
		return true
	})
	return h
}

// overlapsExactly reports whether the active lease in slot s overlaps l
// with names told apart by case: by a path, by a recorded file, or by
// either being the full scope.
func (t *Table) overlapsExactly(s int32, l *Lease) bool {
	r := t.rec(s)
	if r.scopeType() == ScopeFull || l.Scope.Type == ScopeFull {
		return true
	}
	for i := range r.pathCount() {
		if l.Scope.Overlaps(r.pathAt(i)) {
			return true
		}
	}
	for _, f := range t.files[s] {
		if slices.ContainsFunc(l.Scope.Files, func(g File) bool { return g.key() == f.key() }) {
			return true
		}
	}
	return false
}

// Folding is how the table compares names.
func (t *Table) Folding() Folding { return t.index.fold }

func (t *Table) renew(e *Event) error {
	_, r, err := t.activeLease(e.LeaseID)
	if err != nil {
		return err
	}
	exp := r.expires()
	if exp.IsZero() || !e.ExpiresAt.After(exp) {
		return ErrNoExtension
	}
	if r.expired(e.At) {
		return fmt.Errorf("renewal at %s after expiry: %w", e.At.UTC().Format(time.RFC3339), ErrExpired) // no grace period
	}
	m := r.extra()
	m.expires = e.ExpiresAt
	m.reminded = false
	m.heartbeat = e.At
	r.flags |= ownHeartbeat
	if m.renewals < ^uint32(0) {
		m.renewals++ // saturating (INV-0303)
	}
	return nil
}

func (t *Table) remind(e *Event) error {
	_, r, err := t.activeLease(e.LeaseID)
	if err != nil {
		return err
	}
	if r.more != nil && r.more.reminded {
		return ErrAlreadyReminded
	}
	if r.expired(e.At) {
		return fmt.Errorf("reminder after expiry: %w", ErrExpired)
	}
	r.extra().reminded = true
	return nil
}

func (t *Table) end(e *Event) error {
	s, r, err := t.activeLease(e.LeaseID)
	if err != nil {
		return err
	}
	end := e.At
	switch e.Type {
	case EventReleased, EventCompleted:
		if e.Actor != r.holder.owner.Name {
			return ErrUnauthorized // unauthorized release attack
		}
	case EventExpired:
		exp := r.expires()
		if exp.IsZero() || e.At.Before(exp) {
			return ErrEarlyExpiry // early expiration attack
		}
		end = exp // pruning evasion: never the event's own time (INV-0304)
	case EventEvicted, EventReclaimed:
		if e.Actor == "" || e.Reason == "" {
			return fmt.Errorf("%s without actor and reason: %w", e.Type, ErrInvalidEvent)
		}
	}
	r.state = code(stateOf[:], endState[e.Type])
	*t.endingOf(s) = ending{slot: s, terminated: end, reason: e.Reason, endedBy: e.Actor}
	t.unindex(s)
	t.dropLive(s)
	return nil
}

// endState is the state each lease-ending event type leaves its lease in;
// its keys are the types EventType.EndsLease reports.
var endState = map[EventType]State{
	EventReleased:  StateReleased,
	EventCompleted: StateCompleted,
	EventExpired:   StateExpired,
	EventEvicted:   StateEvicted,
	EventReclaimed: StateReclaimed,
}

func (t *Table) activeLease(id LeaseID) (int32, *record, error) {
	s, ok := t.slotOf(id)
	if !ok {
		return 0, nil, ErrNotFound
	}
	r := t.rec(s)
	if !r.active() {
		return 0, nil, fmt.Errorf("lease is %s: %w", stateOf[r.state], ErrTerminal)
	}
	return s, r, nil
}

// addLive lists the lease in slot s among the active ones.
func (t *Table) addLive(s int32) {
	t.live = append(t.live, s)
	t.rec(s).live = int32(len(t.live))
}

// dropLive takes the lease in slot s off the active ones: the last one
// listed takes its place.
func (t *Table) dropLive(s int32) {
	r := t.rec(s)
	i, last := r.live-1, t.live[len(t.live)-1]
	t.live[i] = last
	t.rec(last).live = i + 1
	t.live = t.live[:len(t.live)-1]
	r.live = 0
}

// unindex drops an ended lease from the index.
func (t *Table) unindex(s int32) {
	r := t.rec(s)
	t.unindexFiles(s)
	if r.scopeType() == ScopeFull {
		if i := slices.Index(t.full, s); i >= 0 {
			t.full = slices.Delete(t.full, i, i+1)
		}
		return
	}
	t.unindexPaths(s)
}
