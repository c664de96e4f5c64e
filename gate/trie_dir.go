package gate

import (
	"slices"
	"strings"
)

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

// kid is a subdirectory, or a lone file: a plain path that is the only
// one indexed below the subdirectory it would be in, kept here without
// the directories between (most leased files are alone in their
// directory, and a directory costs several times its ref). Its name is
// the path's segment at the directory's depth. A second path under that
// name makes the directory, and the lone file moves into it.
type kid struct {
	h uint32 // the hash of the name (Folding.hash)
	d *dir   // nil for a lone file
	r ref    // the lone file, when d is nil
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

// kid finds the subdirectory or lone file name of d, whose hash is h, d
// being depth segments below the root: the directory, or nil and the
// lone file's ref; ok is false when there is neither.
func (d *dir) kid(name string, h uint32, depth int, t *trie) (k *dir, lone ref, ok bool) {
	if m := d.kidMap(); m != nil {
		return d.mappedKid(m, name, t.fold)
	}
	for _, k := range d.kids {
		if k.h != h {
			continue
		}
		if k.d != nil && t.fold.Equal(k.d.name, name) {
			return k.d, 0, true
		}
		if k.d == nil && t.fold.Equal(segmentAt(t.pattern(k.r), depth), name) {
			return nil, k.r, true
		}
	}
	return nil, 0, false
}

// mappedKid is kid where d keeps its subdirectories in maps.
func (d *dir) mappedKid(m map[string]*dir, name string, f Folding) (*dir, ref, bool) {
	if f == ExactCase {
		if k := m[name]; k != nil {
			return k, 0, true
		}
		r, ok := d.more.loneMap[name]
		return nil, r, ok
	}
	if k, _ := lookupFolded(m, name, f); k != nil {
		return k, 0, true
	}
	r, ok := lookupFolded(d.more.loneMap, name, f)
	return nil, r, ok
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

// name is the name of subdirectory or lone file k of a directory
// depth segments below the root.
func (k kid) name(depth int, t *trie) string {
	if k.d != nil {
		return k.d.name
	}
	return segmentAt(t.pattern(k.r), depth)
}

// addKid adds subdirectory or lone file k, named name, to d, which is
// depth segments below the root.
func (d *dir) addKid(k kid, name string, depth int, t *trie) {
	if m := d.kidMap(); m != nil {
		d.mapKid(k, name, t.fold)
		return
	}
	if len(d.kids) < maxSmall {
		d.kids = append(d.kids, k)
		return
	}
	all := append(d.kids, k)
	d.kids, d.extra().kidMap = nil, make(map[string]*dir, 2*maxSmall)
	for _, o := range all {
		d.mapKid(o, o.name(depth, t), t.fold)
	}
}

// mapKid keeps k, named name, in d's maps.
func (d *dir) mapKid(k kid, name string, f Folding) {
	if k.d != nil {
		d.more.kidMap[f.folded(name)] = k.d
		return
	}
	if d.more.loneMap == nil {
		d.more.loneMap = make(map[string]ref)
	}
	d.more.loneMap[f.folded(name)] = k.r
}

// dropKid drops the subdirectory or lone file name, whose hash is h, from
// d, which is depth segments below the root.
func (d *dir) dropKid(name string, h uint32, depth int, t *trie) {
	m := d.kidMap()
	if m == nil {
		d.kids = slices.DeleteFunc(d.kids, func(o kid) bool { return o.h == h && t.fold.Equal(o.name(depth, t), name) })
		return
	}
	key := t.fold.folded(name)
	delete(m, key)
	delete(d.more.loneMap, key)
	if len(m)+len(d.more.loneMap) > maxSmall/2 {
		return
	}
	d.kids = make([]kid, 0, len(m)+len(d.more.loneMap))
	for _, o := range m {
		d.kids = append(d.kids, kid{h: t.fold.hash(o.name), d: o})
	}
	for _, r := range d.more.loneMap {
		d.kids = append(d.kids, kid{h: t.fold.hash(segmentAt(t.pattern(r), depth)), r: r})
	}
	d.more.kidMap, d.more.loneMap = nil, nil
	d.tidy()
}

func (d *dir) walkKids(fn func(ref, string) bool, t *trie) bool {
	for _, k := range d.kids {
		if k.d == nil && !fn(k.r, t.pattern(k.r)) || k.d != nil && !k.d.walk(fn, t) {
			return false
		}
	}
	for _, k := range d.kidMap() {
		if !k.walk(fn, t) {
			return false
		}
	}
	if d.more != nil {
		for _, r := range d.more.loneMap {
			if !fn(r, t.pattern(r)) {
				return false
			}
		}
	}
	return true
}

// segmentAt is the segment of path p after its first depth segments.
func segmentAt(p string, depth int) string {
	for range depth {
		_, p, _ = strings.Cut(p, "/")
	}
	seg, _, _ := strings.Cut(p, "/")
	return seg
}

// tailAt is what follows the first depth segments of path p.
func tailAt(p string, depth int) string {
	for range depth {
		_, p, _ = strings.Cut(p, "/")
	}
	return p
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
