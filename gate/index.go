package gate

import "strings"

// Index answers "which leases overlap this pattern" without scanning every
// lease. Each lease pattern is kept at the directory of its literal prefix
// (the segments before the first glob), a plain path as a file of its
// directory, so a query for a plain path visits only the directories along
// it; a glob query also visits the subtree under its own literal prefix.
// Full-scope leases are kept apart: they overlap everything.
type Index struct {
	trie *trie
	pats []indexed // by ref; free ones are listed in free
	free []ref
	full map[LeaseID]struct{}
}

// indexed is one pattern of a lease.
type indexed struct {
	id      LeaseID
	pattern string
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	x := &Index{full: make(map[LeaseID]struct{})}
	x.trie = newTrie(func(r ref) string { return x.pats[r].pattern }, ExactCase)
	return x
}

// Add indexes every path of a lease's scope.
func (x *Index) Add(id LeaseID, s Scope) {
	if s.Type == ScopeFull {
		x.full[id] = struct{}{}
		return
	}
	for _, p := range s.Paths {
		r := ref(len(x.pats))
		if n := len(x.free); n > 0 {
			r, x.free = x.free[n-1], x.free[:n-1]
			x.pats[r] = indexed{id: id, pattern: p}
		} else {
			x.pats = append(x.pats, indexed{id: id, pattern: p})
		}
		x.trie.add(r, p)
	}
}

// Remove drops every path of a lease's scope.
func (x *Index) Remove(id LeaseID, s Scope) {
	if s.Type == ScopeFull {
		delete(x.full, id)
		return
	}
	for _, p := range s.Paths {
		var found ref
		match := func(r ref) bool {
			found = r
			return x.pats[r] == indexed{id: id, pattern: p}
		}
		if x.trie.remove(p, match) {
			x.pats[found] = indexed{}
			x.free = append(x.free, found)
		}
	}
}

// Visit calls fn for each (lease, pattern) overlapping pattern q, full-scope
// leases first, until fn returns false. A full query visits everything. The
// same lease may be visited once per overlapping pattern.
func (x *Index) Visit(q string, full bool, fn func(id LeaseID, pattern string) bool) {
	for id := range x.full {
		if !fn(id, "**") {
			return
		}
	}
	report := func(r ref) bool { return fn(x.pats[r].id, x.pats[r].pattern) }
	if full {
		x.trie.walk(report)
		return
	}
	x.trie.visit(q, report)
}

// Len is the number of indexed patterns plus full-scope leases.
func (x *Index) Len() int { return x.trie.len() + len(x.full) }

// String is for debugging.
func (x *Index) String() string {
	var b strings.Builder
	x.trie.walk(func(r ref) bool {
		b.WriteString(string(x.pats[r].id) + " " + x.pats[r].pattern + "\n")
		return true
	})
	return b.String()
}
