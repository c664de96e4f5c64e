package gate

import (
	"maps"
	"slices"
)

// Clone returns a table that holds the same leases as t and shares no
// memory with it that either one changes: applying events to one leaves
// the other as it was. A writer that applies its decisions before they
// are committed keeps a clone of the committed table to fall back on
// when a commit is refused, instead of replaying its ledger.
func (t *Table) Clone() *Table {
	c := &Table{
		used: t.used, free: slices.Clone(t.free), ids: idIndex{entries: slices.Clone(t.ids.entries), n: t.ids.n},
		full: slices.Clone(t.full), endings: slices.Clone(t.endings), live: slices.Clone(t.live),
		holders: make(map[Owner]*holder, len(t.holders)), groups: make(map[string]*ownerGroup, len(t.groups)),
		files: make(map[int32][]File, len(t.files)), byFile: make(map[fileKey][]int32, len(t.byFile)),
		lastToken: t.lastToken, lastSeq: t.lastSeq,
	}
	for name, g := range t.groups {
		c.groups[name] = &ownerGroup{name: g.name, slots: slices.Clone(g.slots)}
	}
	for o, h := range t.holders {
		c.holders[o] = &holder{owner: h.owner, group: c.groups[h.group.name], refs: h.refs}
	}
	c.chunks = make([]*[chunkLen]record, len(t.chunks))
	for i, ch := range t.chunks {
		cc := *ch
		for j := range cc {
			r := &cc[j]
			if r.holder != nil {
				r.holder = c.holders[r.holder.owner]
			}
			if r.more != nil {
				m := *r.more
				m.paths = slices.Clone(m.paths)
				r.more = &m
			}
		}
		c.chunks[i] = &cc
	}
	for s, fs := range t.files {
		c.files[s] = slices.Clone(fs)
	}
	for k, ss := range t.byFile {
		c.byFile[k] = slices.Clone(ss)
	}
	c.index = newTrie(c.pattern, t.index.fold)
	c.index.root = *cloneDir(&t.index.root, map[*dir]*dir{})
	return c
}

// cloneDir copies d and everything beneath it; seen maps the directories
// copied so far to their copies, so a directory reached twice is copied
// once.
func cloneDir(d *dir, seen map[*dir]*dir) *dir {
	if c, ok := seen[d]; ok {
		return c
	}
	c := &dir{name: d.name, kids: slices.Clone(d.kids), files: slices.Clone(d.files), count: d.count}
	seen[d] = c
	for i := range c.kids {
		if c.kids[i].d != nil {
			c.kids[i].d = cloneDir(c.kids[i].d, seen)
		}
	}
	if d.more != nil {
		m := &dirMore{globs: slices.Clone(d.more.globs), fileMap: maps.Clone(d.more.fileMap), loneMap: maps.Clone(d.more.loneMap)}
		if d.more.kidMap != nil {
			m.kidMap = make(map[string]*dir, len(d.more.kidMap))
			for name, k := range d.more.kidMap {
				m.kidMap[name] = cloneDir(k, seen)
			}
		}
		c.more = m
	}
	return c
}
