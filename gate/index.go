package gate

import "strings"

// Index answers "which active leases overlap this pattern" without scanning
// every lease. Each lease pattern is stored at the trie node of its literal
// prefix (the segments before the first glob), so a query for a plain path
// visits only the nodes along that path; a glob query also visits the
// subtree under its own literal prefix. Full-scope leases are kept apart:
// they overlap everything.
type Index struct {
	root nodeT
	full map[LeaseID]struct{}
}

type nodeT struct {
	children map[string]*nodeT
	entries  []entry  // patterns whose literal prefix ends here
	count    int      // entries in this subtree, for pruning empty branches
	first    [1]entry // backs entries until a second one: most nodes hold one
}

type entry struct {
	pattern string
	id      LeaseID
}

// NewIndex returns an empty index.
func NewIndex() *Index { return &Index{full: make(map[LeaseID]struct{})} }

// Add indexes every path of a lease's scope.
func (x *Index) Add(id LeaseID, s Scope) {
	if s.Type == ScopeFull {
		x.full[id] = struct{}{}
		return
	}
	for _, p := range s.Paths {
		n := &x.root
		n.count++
		for rest, more := p, true; more; {
			var seg string
			if seg, rest, more = strings.Cut(rest, "/"); IsGlob(seg) {
				break
			}
			n = n.child(seg, true)
			n.count++
		}
		if n.entries == nil {
			n.entries = n.first[:0]
		}
		n.entries = append(n.entries, entry{pattern: p, id: id})
	}
}

// Remove drops every path of a lease's scope.
func (x *Index) Remove(id LeaseID, s Scope) {
	if s.Type == ScopeFull {
		delete(x.full, id)
		return
	}
	for _, p := range s.Paths {
		x.root.remove(id, p, p, true)
	}
}

// remove drops (id, p) from the node that the literal segments of rest lead
// to from n (rest is p's tail below n; more is false once it is used up),
// counts it out of every node on the way and drops branches left empty. It
// reports whether the entry was there.
func (n *nodeT) remove(id LeaseID, p, rest string, more bool) bool {
	var ok bool
	seg, tail, deeper := strings.Cut(rest, "/")
	if !more || IsGlob(seg) {
		ok = n.drop(id, p)
	} else if c := n.child(seg, false); c != nil {
		if ok = c.remove(id, p, tail, deeper); ok && c.count == 0 {
			delete(n.children, seg)
		}
	}
	if ok {
		n.count--
	}
	return ok
}

func (n *nodeT) drop(id LeaseID, p string) bool {
	for i, e := range n.entries {
		if e.id == id && e.pattern == p {
			last := len(n.entries) - 1
			n.entries[i] = n.entries[last]
			n.entries = n.entries[:last]
			return true
		}
	}
	return false
}

func (n *nodeT) child(seg string, create bool) *nodeT {
	if c, ok := n.children[seg]; ok || !create {
		return c
	}
	if n.children == nil {
		n.children = make(map[string]*nodeT)
	}
	c := &nodeT{}
	n.children[seg] = c
	return c
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
	if full {
		x.root.walk(func(e entry) bool { return fn(e.id, e.pattern) })
		return
	}
	n := &x.root
	if !n.visitHere(q, fn) {
		return
	}
	for rest, more := q, true; more; {
		var seg string
		if seg, rest, more = strings.Cut(rest, "/"); IsGlob(seg) {
			n.visitBelow(q, fn)
			return
		}
		if n = n.child(seg, false); n == nil {
			return
		}
		if !n.visitHere(q, fn) {
			return
		}
	}
}

func (n *nodeT) visitHere(q string, fn func(LeaseID, string) bool) bool {
	for _, e := range n.entries {
		if Overlap(e.pattern, q) && !fn(e.id, e.pattern) {
			return false
		}
	}
	return true
}

// visitBelow visits the overlapping entries of n's descendants (not n).
func (n *nodeT) visitBelow(q string, fn func(LeaseID, string) bool) bool {
	for _, c := range n.children {
		ok := c.walk(func(e entry) bool {
			return !Overlap(e.pattern, q) || fn(e.id, e.pattern)
		})
		if !ok {
			return false
		}
	}
	return true
}

func (n *nodeT) walk(fn func(entry) bool) bool {
	for _, e := range n.entries {
		if !fn(e) {
			return false
		}
	}
	for _, c := range n.children {
		if !c.walk(fn) {
			return false
		}
	}
	return true
}

// Len is the number of indexed patterns plus full-scope leases.
func (x *Index) Len() int { return x.root.count + len(x.full) }

// String is for debugging.
func (x *Index) String() string {
	var b strings.Builder
	x.root.walk(func(e entry) bool {
		b.WriteString(string(e.id) + " " + e.pattern + "\n")
		return true
	})
	return b.String()
}
