package gate

// LeaseList is a frozen copy of a table's active leases, sorted by fencing
// token, kept in the table's compact form (see record): about a third of
// the memory of the same leases expanded. A status of many leases is made
// from one under the coordinator's lock and expanded a lease at a time as
// it is written, outside the lock. Applying events to the table leaves a
// list made from it as it was. The zero LeaseList is empty.
type LeaseList struct {
	recs  []record
	ends  map[int]ending // by position, for the few records with an ending
	files map[int][]File // by position, for the records that record files
}

// ActiveList returns the table's active leases, sorted by fencing token,
// as Active does but without expanding them.
func (t *Table) ActiveList() LeaseList {
	ss := t.liveWhere(func(*record) bool { return true })
	l := LeaseList{recs: make([]record, len(ss))}
	for i, s := range ss {
		r := t.rec(s)
		l.recs[i] = *r
		if r.more != nil {
			m := *r.more // renewals and reminders change it in place; its paths never change
			l.recs[i].more = &m
		}
		if e := t.ending(r); e != nil {
			if l.ends == nil {
				l.ends = make(map[int]ending)
			}
			l.ends[i] = *e
		}
		if fs := t.files[s]; fs != nil {
			if l.files == nil {
				l.files = make(map[int][]File)
			}
			l.files[i] = fs // indexFiles makes each slice anew, and nothing changes one after
		}
	}
	return l
}

// Len is the number of leases in the list.
func (l LeaseList) Len() int { return len(l.recs) }

// HolderName is the name of the owner holding the i-th lease of the list,
// read without expanding the lease.
func (l LeaseList) HolderName(i int) string { return l.recs[i].holder.owner.Name }

// Lease expands the i-th lease of the list, as Table.Lease returns it.
func (l LeaseList) Lease(i int) Lease {
	r := &l.recs[i]
	var end *ending
	if e, ok := l.ends[i]; ok {
		end = &e
	}
	out := r.lease(r.leaseID(), end)
	if fs := l.files[i]; fs != nil {
		out.Scope.Files = append([]File(nil), fs...)
	}
	return out
}

// Leases expands every lease of the list.
func (l LeaseList) Leases() []Lease {
	out := make([]Lease, l.Len())
	for i := range out {
		out[i] = l.Lease(i)
	}
	return out
}
