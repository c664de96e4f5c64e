package gate

import (
	"slices"
	"time"
)

// keptEndings is the capacity for endings that Prune keeps however few
// there are, so that a steady flow of leases ending does not reallocate.
const keptEndings = 4096

// Prune forgets terminal leases that ended before before, by TerminatedAt
// (never the time of the event that ended them). Active leases are never
// pruned. It returns how many it forgot.
func (t *Table) Prune(before time.Time) int {
	return t.pruneWhere(func(e ending) bool { return e.terminated.Before(before) })
}

// PruneExcess forgets the terminal leases beyond the keep that ended last,
// in the order their endings were applied, so that a burst of short
// leases does not hold memory for a day. Active leases are never pruned.
// It returns how many it forgot.
func (t *Table) PruneExcess(keep int) int {
	excess := t.Ended() - max(keep, 0)
	return t.pruneWhere(func(ending) bool {
		excess--
		return excess >= 0
	})
}

// Ended returns how many terminal leases the table remembers.
func (t *Table) Ended() int { return t.Len() - len(t.live) }

// pruneWhere forgets the terminal leases whose ending drop accepts; it is
// asked about each terminal lease once, oldest ending first.
func (t *Table) pruneWhere(drop func(ending) bool) int {
	var freed []int32
	groups := make(map[*ownerGroup]bool)
	kept := t.endings[:0]
	for _, e := range t.endings {
		r := t.rec(e.slot)
		if r.active() || !drop(e) {
			r.ending = int32(len(kept) + 1)
			kept = append(kept, e)
			continue
		}
		groups[r.holder.group] = true
		t.forget(e.slot)
		freed = append(freed, e.slot)
	}
	clear(t.endings[len(kept):])
	if c := cap(kept); c > keptEndings && len(kept) < c/4 {
		kept = append(make([]ending, 0, max(2*len(kept), keptEndings)), kept...) // give back what a burst took
	}
	t.endings = kept
	for g := range groups {
		t.compact(g)
	}
	t.free = append(t.free, freed...)
	return len(freed)
}

// forget empties a record's slot; the caller frees it once the slot is out
// of its owner group.
func (t *Table) forget(slot int32) {
	r := t.rec(slot)
	t.ids.delete(r.idHash(), slot)
	delete(t.files, slot)
	h := r.holder
	if h.refs--; h.refs == 0 {
		delete(t.holders, h.owner)
	}
	*r = record{}
}

// compact drops the emptied slots from g, and g from the table once it is
// empty.
func (t *Table) compact(g *ownerGroup) {
	g.slots = slices.DeleteFunc(g.slots, func(s int32) bool { return t.rec(s).holder == nil })
	if len(g.slots) == 0 {
		delete(t.groups, g.name)
	}
}
