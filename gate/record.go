package gate

import "time"

// record is the table's compact form of a Lease. It holds what nearly every
// lease has: a ULID, an owner shared with the owner's other leases, one
// path, a grant time and a token. The rest is kept only by the leases that
// set it: an id that is not a ULID, a check-out's expiry, renewals and
// reminder, or a scope of several paths, in more; how a lease ended, in the
// table's endings. A record expands back to the Lease it was granted as,
// field for field (times keep their location and monotonic reading).
type record struct {
	id       packedID // unless textID
	holder   *holder  // nil for a free slot
	path     string   // the one path of the scope, unless manyPaths
	acquired time.Time
	token    uint64
	more     *recordMore
	ending   int32 // 1 + the position in Table.endings, or 0
	live     int32 // 1 + the position in Table.live while active, or 0
	state    uint8 // index into stateOf
	kind     uint8 // index into kindOf, or otherCode
	scope    uint8 // index into scopeOf, or otherCode
	flags    uint8
}

// Record flags.
const (
	manyPaths    uint8 = 1 << iota // the scope's paths are in more.paths
	textID                         // the id is not a ULID: it is more.id
	ownHeartbeat                   // more.heartbeat differs from acquired
	newDir                         // Lease.NewDir
)

// recordMore holds the lease fields most leases leave at their zero value,
// and the kind and scope type when they are none of the known ones.
type recordMore struct {
	id        LeaseID
	kind      Kind
	scopeType ScopeType
	paths     []string
	heartbeat time.Time
	expires   time.Time
	renewals  uint32
	reminded  bool
}

func (m *recordMore) empty() bool {
	return m.id == "" && m.kind == "" && m.scopeType == "" && m.paths == nil && m.heartbeat == (time.Time{}) &&
		m.expires == (time.Time{}) && m.renewals == 0 && !m.reminded
}

// ending is how a lease ended: set when it did (or by a grant event that
// already carried these fields).
type ending struct {
	slot       int32
	terminated time.Time
	reason     string
	endedBy    string
}

// holder is one distinct Owner value, shared by the records it holds.
type holder struct {
	owner Owner
	group *ownerGroup
	refs  int
}

// ownerGroup lists the slots of the leases of one owner name.
type ownerGroup struct {
	name  string
	slots []int32
}

const otherCode = 0xff

var (
	stateOf = [...]State{StateActive, StateReleased, StateExpired, StateEvicted, StateCompleted, StateReclaimed}
	kindOf  = [...]Kind{KindAuto, KindCheckout}
	scopeOf = [...]ScopeType{ScopeFile, ScopeSparse, ScopeFull}
)

// code is the index of v in known, or otherCode.
func code[T comparable](known []T, v T) uint8 {
	for i, k := range known {
		if k == v {
			return uint8(i)
		}
	}
	return otherCode
}

// newRecord compacts an active lease l held by h.
func newRecord(l *Lease, h *holder) record {
	r := record{holder: h, acquired: l.AcquiredAt, token: l.FencingToken,
		state: code(stateOf[:], l.State), kind: code(kindOf[:], l.Kind), scope: code(scopeOf[:], l.Scope.Type)}
	m := recordMore{expires: l.ExpiresAt, renewals: l.RenewalCount, reminded: l.ReminderSent}
	if id, ok := packID(l.ID); ok {
		r.id = id
	} else {
		r.flags |= textID
		m.id = l.ID
	}
	if r.kind == otherCode {
		m.kind = l.Kind
	}
	if r.scope == otherCode {
		m.scopeType = l.Scope.Type
	}
	if len(l.Scope.Paths) == 1 {
		r.path = l.Scope.Paths[0]
	} else {
		r.flags |= manyPaths
		m.paths = append([]string(nil), l.Scope.Paths...)
	}
	if l.NewDir {
		r.flags |= newDir
	}
	if l.LastHeartbeatAt != l.AcquiredAt { // not Equal: the same location and monotonic reading too
		r.flags |= ownHeartbeat
		m.heartbeat = l.LastHeartbeatAt
	}
	if !m.empty() {
		r.more = new(recordMore)
		*r.more = m
	}
	return r
}

// lease expands the record, whose id is id; end is its ending, if any.
func (r *record) lease(id LeaseID, end *ending) Lease {
	l := Lease{ID: id, Owner: r.holder.owner, Kind: r.kindName(), State: stateOf[r.state],
		Scope:        Scope{Type: r.scopeType(), Paths: r.paths()},
		FencingToken: r.token, AcquiredAt: r.acquired, LastHeartbeatAt: r.acquired, NewDir: r.flags&newDir != 0}
	if m := r.more; m != nil {
		l.ExpiresAt, l.RenewalCount, l.ReminderSent = m.expires, m.renewals, m.reminded
		if r.flags&ownHeartbeat != 0 {
			l.LastHeartbeatAt = m.heartbeat
		}
	}
	if end != nil {
		l.TerminatedAt, l.ReleaseReason, l.EndedBy = end.terminated, end.reason, end.endedBy
	}
	return l
}

func (r *record) leaseID() LeaseID {
	if r.flags&textID != 0 {
		return r.more.id
	}
	return r.id.leaseID()
}

// hasID reports whether r's id is id, given packID(id).
func (r *record) hasID(id LeaseID, p packedID, packed bool) bool {
	if r.flags&textID != 0 {
		return !packed && r.more.id == id
	}
	return packed && r.id == p
}

// idHash is the hash the table's id index keeps for r's id: of its bits for
// a ULID, of its text otherwise.
func (r *record) idHash() uint32 {
	if r.flags&textID != 0 {
		return textHash(r.more.id)
	}
	return r.id.hash()
}

func (r *record) kindName() Kind {
	if r.kind == otherCode {
		return r.more.kind
	}
	return kindOf[r.kind]
}

func (r *record) scopeType() ScopeType {
	if r.scope == otherCode {
		return r.more.scopeType
	}
	return scopeOf[r.scope]
}

// paths returns a copy of the scope's paths: nil when there are none.
func (r *record) paths() []string {
	if r.flags&manyPaths != 0 {
		return append([]string(nil), r.morePaths()...)
	}
	return []string{r.path}
}

func (r *record) pathCount() int {
	if r.flags&manyPaths != 0 {
		return len(r.morePaths())
	}
	return 1
}

func (r *record) pathAt(i int) string {
	if r.flags&manyPaths != 0 {
		return r.morePaths()[i]
	}
	return r.path
}

func (r *record) morePaths() []string {
	if r.more == nil {
		return nil // a scope of no paths
	}
	return r.more.paths
}

func (r *record) active() bool { return r.state == 0 }

func (r *record) expires() time.Time {
	if r.more == nil {
		return time.Time{}
	}
	return r.more.expires
}

// expired is Lease.Expired.
func (r *record) expired(now time.Time) bool {
	exp := r.expires()
	return !exp.IsZero() && !now.Before(exp)
}

// extra returns r.more, adding it if r has none.
func (r *record) extra() *recordMore {
	if r.more == nil {
		r.more = &recordMore{}
	}
	return r.more
}
