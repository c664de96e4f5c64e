package gate

import "time"

// chunkLen is how many records a chunk of the table holds. Records live in
// fixed chunks, so the table grows without copying what it holds.
const chunkLen = 1024

// rec returns the record in slot s.
func (t *Table) rec(s int32) *record { return &t.chunks[s/chunkLen][s%chunkLen] }

func (t *Table) has(id LeaseID) bool {
	_, ok := t.slotOf(id)
	return ok
}

// slotOf returns the slot of the lease with id.
func (t *Table) slotOf(id LeaseID) (int32, bool) {
	p, packed := packID(id)
	h := p.hash() // as record.idHash
	if !packed {
		h = textHash(id)
	}
	return t.ids.get(h, func(s int32) bool { return t.rec(s).hasID(id, p, packed) })
}

// add stores an active lease in a free slot and returns the slot.
func (t *Table) add(l *Lease) int32 {
	s := t.slot()
	h := t.holder(l.Owner)
	*t.rec(s) = newRecord(l, h)
	h.refs++
	h.group.slots = append(h.group.slots, s)
	t.ids.put(t.rec(s).idHash(), s)
	if l.TerminatedAt != (time.Time{}) || l.ReleaseReason != "" || l.EndedBy != "" {
		*t.endingOf(s) = ending{slot: s, terminated: l.TerminatedAt, reason: l.ReleaseReason, endedBy: l.EndedBy}
	}
	return s
}

// slot takes a free slot, adding a chunk when there is none.
func (t *Table) slot() int32 {
	if n := len(t.free); n > 0 {
		s := t.free[n-1]
		t.free = t.free[:n-1]
		return s
	}
	if int(t.used) == len(t.chunks)*chunkLen {
		t.chunks = append(t.chunks, new([chunkLen]record))
	}
	t.used++
	return t.used - 1
}

// holder returns the shared holder of owner o, adding it if needed.
func (t *Table) holder(o Owner) *holder {
	if h := t.holders[o]; h != nil {
		return h
	}
	g := t.groups[o.Name]
	if g == nil {
		g = &ownerGroup{name: o.Name}
		t.groups[o.Name] = g
	}
	h := &holder{owner: o, group: g}
	t.holders[o] = h
	return h
}

// endingOf returns the ending of the lease in slot s, adding an empty one
// if it has none.
func (t *Table) endingOf(s int32) *ending {
	r := t.rec(s)
	if r.ending == 0 {
		t.endings = append(t.endings, ending{slot: s})
		r.ending = int32(len(t.endings))
	}
	return &t.endings[r.ending-1]
}

// ending returns the ending of r, or nil.
func (t *Table) ending(r *record) *ending {
	if r.ending == 0 {
		return nil
	}
	return &t.endings[r.ending-1]
}

// refOf is the index ref of path i of the lease in slot s: the slot in the
// high half, i in the low half.
func refOf(s int32, i int) ref { return ref(s)<<32 | ref(uint32(i)) }

func refSlot(x ref) int32 { return int32(x >> 32) }

// pattern resolves an index ref to its path.
func (t *Table) pattern(x ref) string { return t.rec(refSlot(x)).pathAt(int(uint32(x))) }

// visit calls fn for the slot of each active lease overlapping s, once per
// overlapping path or shared file (a lease may come more than once), until
// fn returns false.
func (t *Table) visit(s Scope, fn func(int32) bool) {
	for _, f := range t.full {
		if !fn(f) {
			return
		}
	}
	each := func(x ref) bool { return fn(refSlot(x)) }
	if s.Type == ScopeFull {
		t.index.walk(each)
		return
	}
	for _, p := range s.Paths {
		if !t.index.visit(p, each) {
			return
		}
	}
	for _, f := range s.Files {
		for _, x := range t.byFile[f.key()] {
			if !fn(x) {
				return
			}
		}
	}
}
