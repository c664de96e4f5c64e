package gate

import "slices"

// The subdirectories and the plain paths of a directory are each kept in a
// slice, scanned in order, while there are at most maxSmall of them, and in
// a map above that: most directories hold a few leased files, and a slice
// of them costs a fraction of a map. A slice entry keeps the hash of its
// name, so a scan compares names only when hashes agree. A second lease on
// a path already in the file map is kept in the slice, which every lookup
// also scans. Under a folding the maps are keyed by the folded name (see
// Folding.folded), and a name is looked up without allocating a key.

// maxSmall is the most subdirectories or files a directory keeps in a slice.
const maxSmall = 16

type kid struct {
	h uint32 // the hash of d.name (Folding.hash)
	d *dir
}

type file struct {
	h uint32 // the hash of the path's last segment (Folding.hash)
	r ref
}

func (d *dir) kidMap() map[string]*dir {
	if d.more == nil {
		return nil
	}
	return d.more.kidMap
}

func (d *dir) fileMap() map[string]ref {
	if d.more == nil {
		return nil
	}
	return d.more.fileMap
}

// kid returns the subdirectory name of d, whose hash is h, or nil.
func (d *dir) kid(name string, h uint32, f Folding) *dir {
	if m := d.kidMap(); m != nil {
		if f == ExactCase {
			return m[name]
		}
		k, _ := lookupFolded(m, name, f)
		return k
	}
	for _, k := range d.kids {
		if k.h == h && f.Equal(k.d.name, name) {
			return k.d
		}
	}
	return nil
}

// maxKeyOnStack is the length of a folded name or path a lookup folds
// into a buffer on the stack; a longer one is allocated.
const maxKeyOnStack = 256

// lookupFolded returns m's entry for name folded, without allocating the
// key when it is short. It is kept out of line so that lookups where case
// counts do not pay for the buffer.
//
//go:noinline
func lookupFolded[V any](m map[string]V, name string, f Folding) (V, bool) {
	var key [maxKeyOnStack]byte
	v, ok := m[string(f.appendKey(key[:0], name))]
	return v, ok
}

// addKid adds subdirectory k, whose name hashes to h.
func (d *dir) addKid(k *dir, h uint32, f Folding) {
	if m := d.kidMap(); m != nil {
		m[f.folded(k.name)] = k
		return
	}
	if len(d.kids) < maxSmall {
		d.kids = append(d.kids, kid{h: h, d: k})
		return
	}
	m := make(map[string]*dir, 2*maxSmall)
	for _, o := range d.kids {
		m[f.folded(o.d.name)] = o.d
	}
	m[f.folded(k.name)] = k
	d.kids, d.extra().kidMap = nil, m
}

// dropKid drops subdirectory k, whose name hashes to h.
func (d *dir) dropKid(k *dir, h uint32, t *trie) {
	m := d.kidMap()
	if m == nil {
		d.kids = slices.DeleteFunc(d.kids, func(o kid) bool { return o.d == k })
		return
	}
	delete(m, t.fold.folded(k.name))
	if len(m) > maxSmall/2 {
		return
	}
	d.kids = make([]kid, 0, len(m))
	for _, o := range m {
		d.kids = append(d.kids, kid{h: t.fold.hash(o.name), d: o})
	}
	d.more.kidMap = nil
	d.tidy()
}

func (d *dir) walkKids(fn func(ref, string) bool, t *trie) bool {
	for _, k := range d.kids {
		if !k.d.walk(fn, t) {
			return false
		}
	}
	for _, k := range d.kidMap() {
		if !k.walk(fn, t) {
			return false
		}
	}
	return true
}

// addFile keeps plain path p, indexed as f, in d.
func (d *dir) addFile(f file, p string, t *trie) {
	if m := d.fileMap(); m != nil {
		key := t.fold.folded(p)
		if _, dup := m[key]; dup {
			d.files = append(d.files, f)
		} else {
			m[key] = f.r
		}
		return
	}
	if len(d.files) < maxSmall {
		d.files = append(d.files, f)
		return
	}
	all := append(d.files, f)
	d.files, d.extra().fileMap = nil, make(map[string]ref, 2*maxSmall)
	for _, o := range all {
		d.addFile(o, t.pattern(o.r), t)
	}
}

// mapped returns the ref d's file map keeps for plain path p.
func (d *dir) mapped(p string, f Folding) (ref, bool) {
	m := d.fileMap()
	if m == nil {
		return 0, false
	}
	if f == ExactCase {
		r, ok := m[p]
		return r, ok
	}
	return lookupFolded(m, p, f)
}

// dropFile drops the ref of plain path p (whose last segment hashes to h)
// for which match is true.
func (d *dir) dropFile(p string, h uint32, match func(ref) bool, t *trie) bool {
	if r, ok := d.mapped(p, t.fold); ok && match(r) {
		delete(d.more.fileMap, t.fold.folded(p))
		d.shrinkFiles(t)
		return true
	}
	for i, f := range d.files {
		if f.h == h && match(f.r) {
			last := len(d.files) - 1
			d.files[i] = d.files[last]
			d.files = d.files[:last]
			d.shrinkFiles(t)
			return true
		}
	}
	return false
}

// shrinkFiles goes back to a slice once the map holds few paths: a map
// never gives its memory back.
func (d *dir) shrinkFiles(t *trie) {
	m := d.fileMap()
	if m == nil || len(m)+len(d.files) > maxSmall/2 {
		return
	}
	files := make([]file, 0, len(m)+len(d.files))
	files = append(files, d.files...)
	for _, r := range m {
		files = append(files, file{h: t.fold.hash(lastSegment(t.pattern(r))), r: r})
	}
	d.files, d.more.fileMap = files, nil
	d.tidy()
}

// visitFile calls fn for the refs of plain path q in d; h is the hash of
// q's last segment.
func (d *dir) visitFile(q string, h uint32, fn func(ref) bool, t *trie) bool {
	if r, ok := d.mapped(q, t.fold); ok && !fn(r) {
		return false
	}
	for _, f := range d.files {
		if f.h == h && t.fold.Equal(t.pattern(f.r), q) && !fn(f.r) {
			return false
		}
	}
	return true
}

// walkFiles calls fn for each file of d and its path.
func (d *dir) walkFiles(fn func(ref, string) bool, t *trie) bool {
	for _, f := range d.files {
		if !fn(f.r, t.pattern(f.r)) {
			return false
		}
	}
	for p, r := range d.fileMap() {
		if t.fold != ExactCase {
			p = t.pattern(r) // the key is folded
		}
		if !fn(r, p) {
			return false
		}
	}
	return true
}

func lastSegment(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}
