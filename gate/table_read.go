package gate

import (
	"cmp"
	"slices"
)

// Lease returns a copy of the lease with id.
func (t *Table) Lease(id LeaseID) (Lease, bool) {
	s, ok := t.slotOf(id)
	if !ok {
		return Lease{}, false
	}
	r := t.rec(s)
	l := r.lease(id, t.ending(r)) // id is the record's, and need not be made again
	l.Scope.Files = t.filesOf(s)
	return l, true
}

func (t *Table) lease(s int32) Lease {
	r := t.rec(s)
	l := r.lease(r.leaseID(), t.ending(r))
	l.Scope.Files = t.filesOf(s)
	return l
}

// Overlapping returns the active leases overlapping a scope, sorted by
// fencing token (oldest grant first), each once.
func (t *Table) Overlapping(s Scope) []Lease {
	return t.leases(t.overlapping(s))
}

// overlapping returns the slots of the active leases overlapping s, sorted
// by fencing token, each once.
func (t *Table) overlapping(s Scope) []int32 {
	var out []int32
	t.visit(s, func(x int32) bool {
		out = append(out, x)
		return true
	})
	t.sortByToken(out)
	return slices.Compact(out) // one lease has one token: its repeats are adjacent
}

// Active returns every active lease sorted by fencing token.
func (t *Table) Active() []Lease { return t.leases(t.liveWhere(func(*record) bool { return true })) }

// Expiring returns the active leases that have an expiry (check-outs),
// sorted by fencing token: the only ones a sweep can expire or remind,
// found without copying every auto lease as Active would.
func (t *Table) Expiring() []Lease {
	return t.leases(t.liveWhere(func(r *record) bool { return !r.expires().IsZero() }))
}

// HolderNames returns, sorted, the names of the owners holding an active
// lease of kind k, without copying a lease.
func (t *Table) HolderNames(k Kind) []string {
	seen := make(map[*ownerGroup]bool)
	var names []string
	for _, s := range t.live {
		r := t.rec(s)
		if g := r.holder.group; !seen[g] && r.kindName() == k {
			seen[g] = true
			names = append(names, g.name)
		}
	}
	slices.Sort(names)
	return names
}

// All returns every lease the table remembers, sorted by fencing token.
func (t *Table) All() []Lease { return t.filter(func(*record) bool { return true }) }

// liveWhere returns the slots of the active leases that keep accepts,
// sorted by fencing token. It looks at active leases only: the ended ones
// the table remembers for a day can be many more.
func (t *Table) liveWhere(keep func(*record) bool) []int32 {
	var ss []int32
	for _, s := range t.live {
		if keep(t.rec(s)) {
			ss = append(ss, s)
		}
	}
	t.sortByToken(ss)
	return ss
}

// ByOwner returns the active leases of owner name.
func (t *Table) ByOwner(name string) []Lease {
	var ss []int32
	if g := t.groups[name]; g != nil {
		for _, s := range g.slots {
			if t.rec(s).active() {
				ss = append(ss, s)
			}
		}
	}
	t.sortByToken(ss)
	return t.leases(ss)
}

func (t *Table) filter(keep func(*record) bool) []Lease {
	var ss []int32
	for s := range t.used {
		if r := t.rec(s); r.holder != nil && keep(r) {
			ss = append(ss, s)
		}
	}
	t.sortByToken(ss)
	return t.leases(ss)
}

// leases expands the records in slots ss.
func (t *Table) leases(ss []int32) []Lease {
	out := make([]Lease, len(ss))
	for i, s := range ss {
		out[i] = t.lease(s)
	}
	return out
}

func (t *Table) sortByToken(ss []int32) {
	if len(ss) > 1 {
		slices.SortFunc(ss, func(a, b int32) int { return cmp.Compare(t.rec(a).token, t.rec(b).token) })
	}
}

// ActiveCount is the number of active leases.
func (t *Table) ActiveCount() int { return len(t.live) }

// Len is the number of leases remembered, terminal ones included.
func (t *Table) Len() int { return t.ids.len() }

// LastToken is the highest fencing token granted.
func (t *Table) LastToken() uint64 { return t.lastToken }

// LastSeq is the sequence number of the last event applied.
func (t *Table) LastSeq() uint64 { return t.lastSeq }
