package gate

import "strings"

// ref names one indexed pattern. The trie keeps refs, not paths: its user
// owns the patterns and resolves a ref back to one, so a path leased once is
// stored once.
type ref uint64

// trie indexes patterns by directory. A glob is kept at the directory of
// its literal prefix (the segments before the first glob); a plain path is
// kept as a file of its parent directory, with no node of its own. A query
// for a plain path visits only the directories along it; a glob query also
// visits the subtree under its own literal prefix.
//
// Under a folding names are compared folded (see Folding): a directory is
// found under any spelling of its name (it keeps the spelling it was made
// with), the maps of many subdirectories or files are keyed by the folded
// name, and the hashes kept beside names are of the folded name.
type trie struct {
	root    dir
	pattern func(ref) string
	spare   []*dir // emptied directories, for reuse
	fold    Folding
}

// maxSpare is how many emptied directories the trie keeps for reuse: a
// directory whose one leased file is released often comes back soon.
const maxSpare = 4

// dir is one directory of the trie. Its subdirectories and files are small
// sets (see trie_dir.go); what most directories lack is in more.
type dir struct {
	name  string // segment under the parent
	kids  []kid  // subdirectories and lone files while few
	files []file // plain paths here while few, and duplicates of more.fileMap's
	more  *dirMore
	count int // refs in this subtree, to drop empty branches
}

// dirMore holds a directory's globs, and its subdirectories and files once
// there are many.
type dirMore struct {
	globs   []glob          // globs whose literal prefix ends here
	kidMap  map[string]*dir // subdirectories by name (folded under a folding)
	loneMap map[string]ref  // lone files by name (see kid), kept beside kidMap
	fileMap map[string]ref  // plain paths here by path (folded under a folding)
}

type glob struct {
	pattern string
	r       ref
	segs    int // segCount(pattern)
}

func newTrie(pattern func(ref) string, f Folding) *trie { return &trie{pattern: pattern, fold: f} }

// add indexes pattern p as r.
func (t *trie) add(r ref, p string) { t.addBelow(&t.root, r, p, p, 0) }

// addBelow indexes pattern p as r in d's subtree; rest is p's tail below
// d, which is depth segments below the root.
func (t *trie) addBelow(d *dir, r ref, p, rest string, depth int) {
	plain := !IsGlob(p)
	d.count++
	for ; ; depth++ {
		seg, tail, more := strings.Cut(rest, "/")
		if IsGlob(seg) {
			m := d.extra()
			m.globs = append(m.globs, glob{pattern: p, r: r, segs: segCount(p)})
			return
		}
		h := t.fold.hash(seg)
		if !more {
			d.addFile(file{h: h, r: r}, p, t)
			return
		}
		k, lone, found := d.kid(seg, h, depth, t)
		switch {
		case !found && plain:
			d.addKid(kid{h: h, r: r}, seg, depth, t)
			return
		case !found:
			k = t.newDir(seg)
			d.addKid(kid{h: h, d: k}, seg, depth, t)
		case k == nil: // a lone file: the directory it was alone in is made, spelt as its path spells it
			lp := t.pattern(lone)
			d.dropKid(seg, h, depth, t)
			k = t.newDir(segmentAt(lp, depth))
			d.addKid(kid{h: h, d: k}, k.name, depth, t)
			t.addBelow(k, lone, lp, tailAt(lp, depth+1), depth+1)
		}
		d = k
		d.count++
		rest = tail
	}
}

// remove drops the ref of pattern p for which match is true, and reports
// whether there was one. Directories left empty are dropped.
func (t *trie) remove(p string, match func(ref) bool) bool {
	return t.removeBelow(&t.root, p, p, 0, match)
}

// removeBelow drops p (rest is its tail below d, which is depth segments
// below the root) from d's subtree.
func (t *trie) removeBelow(d *dir, p, rest string, depth int, match func(ref) bool) bool {
	seg, tail, more := strings.Cut(rest, "/")
	var ok bool
	switch {
	case IsGlob(seg):
		ok = d.dropGlob(match)
	case !more:
		ok = d.dropFile(p, t.fold.hash(seg), match, t)
	default:
		h := t.fold.hash(seg)
		k, lone, found := d.kid(seg, h, depth, t)
		switch {
		case found && k == nil:
			if ok = match(lone); ok {
				d.dropKid(seg, h, depth, t)
			}
		case found:
			if ok = t.removeBelow(k, p, tail, depth+1, match); ok && k.count == 0 {
				d.dropKid(seg, h, depth, t)
				t.recycle(k)
			}
		}
	}
	if ok {
		d.count--
	}
	return ok
}

// newDir returns an empty directory named name.
func (t *trie) newDir(name string) *dir {
	n := len(t.spare)
	if n == 0 {
		return &dir{name: name}
	}
	d := t.spare[n-1]
	t.spare[n-1] = nil
	t.spare = t.spare[:n-1]
	d.name = name
	return d
}

// recycle keeps emptied directory d for reuse, with the small slices it
// had, if the trie keeps fewer than maxSpare.
func (t *trie) recycle(d *dir) {
	if len(t.spare) < maxSpare {
		*d = dir{kids: d.kids[:0], files: d.files[:0]}
		t.spare = append(t.spare, d)
	}
}

// extra returns d.more, adding it if d has none.
func (d *dir) extra() *dirMore {
	if d.more == nil {
		d.more = &dirMore{}
	}
	return d.more
}

// tidy drops d.more once it holds nothing.
func (d *dir) tidy() {
	if m := d.more; m != nil && len(m.globs) == 0 && m.kidMap == nil && m.loneMap == nil && m.fileMap == nil {
		d.more = nil
	}
}

func (d *dir) globs() []glob {
	if d.more == nil {
		return nil
	}
	return d.more.globs
}

func (d *dir) dropGlob(match func(ref) bool) bool {
	gs := d.globs()
	for i, g := range gs {
		if match(g.r) {
			last := len(gs) - 1
			gs[i], gs[last] = gs[last], glob{}
			d.more.globs = gs[:last]
			d.tidy()
			return true
		}
	}
	return false
}

// visit calls fn for each ref whose pattern overlaps q, until fn returns
// false; it reports whether fn never did. Each ref is visited at most once.
func (t *trie) visit(q string, fn func(ref) bool) bool {
	glob, segs := IsGlob(q), strings.Count(q, "/")+1
	if glob && hasDoubleStar(q) {
		segs = -1 // see segCount
	}
	d := &t.root
	for i, depth := 0, 0; ; depth++ {
		if !d.visitGlobs(q, i, segs, fn, t.fold) {
			return false
		}
		seg, _, more := strings.Cut(q[i:], "/")
		if IsGlob(seg) {
			return t.visitBelow(d, q, fn)
		}
		h, end := t.fold.hash(seg), i+len(seg)
		if (!more || glob && Overlap(q[:end], q)) && !d.visitFile(q[:end], h, fn, t) {
			return false // q itself, or a plain path on q's literal prefix that a "**" of q matches
		}
		k, lone, found := d.kid(seg, h, depth, t)
		if !found {
			return true
		}
		if k == nil {
			return !overlap(t.pattern(lone), q, t.fold) || fn(lone) // the one path indexed below seg
		}
		d = k
		if !more {
			return d.visitGlobs(q, 0, segs, fn, t.fold) // "a/**" kept at a overlaps "a"
		}
		i = end + 1
	}
}

// visitGlobs visits d's globs that overlap q, which has segs segments
// (see segCount). The first i bytes of q are the path of d and a slash: the
// literal prefix every glob of d starts with. Under a folding a glob's
// prefix may be spelt with another number of bytes, so the whole patterns
// are compared.
func (d *dir) visitGlobs(q string, i, segs int, fn func(ref) bool, f Folding) bool {
	if f != ExactCase {
		i = 0
	}
	for _, g := range d.globs() {
		if g.segs != segs && g.segs >= 0 && segs >= 0 {
			continue // without "**", patterns overlap only segment for segment
		}
		if overlap(g.pattern[i:], q[i:], f) && !fn(g.r) {
			return false
		}
	}
	return true
}

// visitBelow visits the overlapping refs of d's files and subdirectories
// (not d's globs, which the caller has checked).
func (t *trie) visitBelow(d *dir, q string, fn func(ref) bool) bool {
	overlapping := func(r ref, p string) bool { return !overlap(p, q, t.fold) || fn(r) }
	return d.walkFiles(overlapping, t) && d.walkKids(overlapping, t)
}

// walk calls fn for every ref until it returns false.
func (t *trie) walk(fn func(ref) bool) bool {
	return t.root.walk(func(r ref, _ string) bool { return fn(r) }, t)
}

// walk calls fn for every ref of d's subtree and its pattern.
func (d *dir) walk(fn func(ref, string) bool, t *trie) bool {
	for _, g := range d.globs() {
		if !fn(g.r, g.pattern) {
			return false
		}
	}
	return d.walkFiles(fn, t) && d.walkKids(fn, t)
}

// len is the number of refs indexed.
func (t *trie) len() int { return t.root.count }

// segCount is the number of segments of pattern p, or -1 if p has a "**"
// segment, which matches any number.
func segCount(p string) int {
	if hasDoubleStar(p) {
		return -1
	}
	return strings.Count(p, "/") + 1
}

// segHash is the FNV-1a hash of a path segment. Directories keep the hash of
// each subdirectory and file name beside it, so that a lookup compares
// names only when their hashes agree.
func segHash(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return h
}
