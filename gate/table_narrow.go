package gate

import (
	"fmt"
	"strings"
)

// narrow applies EventNarrowed: the lease, taken on a new directory's
// subtree, now covers the paths of e.Lease's scope instead. Each of them
// must be one its scope covered already (a literal path it matches, or
// "P/**" beneath one of its subtrees), so a narrowing never widens a
// lease and never needs to look for another holder.
func (t *Table) narrow(e *Event) error {
	s, r, err := t.activeLease(e.LeaseID)
	if err != nil {
		return err
	}
	switch {
	case r.flags&newDir == 0:
		return fmt.Errorf("narrowing of a lease not taken on a new directory: %w", ErrInvalidEvent)
	case e.Lease == nil || e.Lease.ID != e.LeaseID || len(e.Lease.Scope.Paths) == 0 || e.Actor == "":
		return fmt.Errorf("narrowing without the lease's paths or the owner that narrowed it: %w", ErrInvalidEvent)
	}
	paths := e.Lease.Scope.Paths
	old := Scope{Type: r.scopeType(), Paths: r.paths()}
	for _, p := range paths {
		if !t.index.fold.narrower(old, p) {
			return fmt.Errorf("narrowing to %s, which the lease does not cover: %w", ShownPath(p), ErrInvalidEvent)
		}
	}
	t.unindexPaths(s)
	r.setPaths(paths)
	r.scope = code(scopeOf[:], ScopeTypeOf(paths))
	for i, p := range paths {
		t.index.add(refOf(s, i), p)
	}
	return nil
}

// narrower reports whether the pattern p covers nothing that s does not:
// a path without glob characters s matches, or "P/**" with s covering P's
// whole subtree.
func (f Folding) narrower(s Scope, p string) bool {
	if dir, ok := strings.CutSuffix(p, "/**"); ok && !IsGlob(dir) {
		return f.CoversTree(s, dir)
	}
	return !IsGlob(p) && f.Covers(s, p)
}

// setPaths replaces the record's scope paths.
func (r *record) setPaths(paths []string) {
	if len(paths) == 1 {
		r.path = paths[0]
		r.flags &^= manyPaths
		if r.more != nil {
			r.more.paths = nil
		}
		return
	}
	r.path = ""
	r.flags |= manyPaths
	r.extra().paths = append([]string(nil), paths...)
}

// unindexPaths drops the paths of the lease in slot s from the index.
func (t *Table) unindexPaths(s int32) {
	r := t.rec(s)
	for i := range r.pathCount() {
		target := refOf(s, i)
		t.index.remove(r.pathAt(i), func(x ref) bool { return x == target })
	}
}
