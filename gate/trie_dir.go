package gate

import "slices"

// The subdirectories and the plain paths of a directory are each kept in a
// slice, scanned in order, while there are at most maxSmall of them, and in
// a map above that: most directories hold a few leased files, and a slice
// of them costs a fraction of a map. A slice entry keeps the hash of its
// name, so a scan compares names only when hashes agree. A second lease on
// a path already in the file map is kept in the slice, which every lookup
// also scans.

// maxSmall is the most subdirectories or files a directory keeps in a slice.
const maxSmall = 16

type kid struct {
	h uint32 // segHash(d.name)
	d *dir
}

type file struct {
	h uint32 // segHash of the path's last segment
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
func (d *dir) kid(name string, h uint32) *dir {
	if m := d.kidMap(); m != nil {
		return m[name]
	}
	for _, k := range d.kids {
		if k.h == h && k.d.name == name {
			return k.d
		}
	}
	return nil
}

// addKid adds subdirectory k, whose name hashes to h.
func (d *dir) addKid(k *dir, h uint32) {
	if m := d.kidMap(); m != nil {
		m[k.name] = k
		return
	}
	if len(d.kids) < maxSmall {
		d.kids = append(d.kids, kid{h: h, d: k})
		return
	}
	m := make(map[string]*dir, 2*maxSmall)
	for _, o := range d.kids {
		m[o.d.name] = o.d
	}
	m[k.name] = k
	d.kids, d.extra().kidMap = nil, m
}

func (d *dir) dropKid(name string, h uint32) {
	m := d.kidMap()
	if m == nil {
		d.kids = slices.DeleteFunc(d.kids, func(k kid) bool { return k.h == h && k.d.name == name })
		return
	}
	delete(m, name)
	if len(m) > maxSmall/2 {
		return
	}
	d.kids = make([]kid, 0, len(m))
	for name, k := range m {
		d.kids = append(d.kids, kid{h: segHash(name), d: k})
	}
	d.more.kidMap = nil
	d.tidy()
}

func (d *dir) walkKids(fn func(ref, string) bool, pattern func(ref) string) bool {
	for _, k := range d.kids {
		if !k.d.walk(fn, pattern) {
			return false
		}
	}
	for _, k := range d.kidMap() {
		if !k.walk(fn, pattern) {
			return false
		}
	}
	return true
}

// addFile keeps plain path p, indexed as f, in d.
func (d *dir) addFile(f file, p string, pattern func(ref) string) {
	if m := d.fileMap(); m != nil {
		if _, dup := m[p]; dup {
			d.files = append(d.files, f)
		} else {
			m[p] = f.r
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
		d.addFile(o, pattern(o.r), pattern)
	}
}

// dropFile drops the ref of plain path p (whose last segment hashes to h)
// for which match is true.
func (d *dir) dropFile(p string, h uint32, match func(ref) bool) bool {
	if r, ok := d.fileMap()[p]; ok && match(r) {
		delete(d.more.fileMap, p)
		d.shrinkFiles()
		return true
	}
	for i, f := range d.files {
		if f.h == h && match(f.r) {
			last := len(d.files) - 1
			d.files[i] = d.files[last]
			d.files = d.files[:last]
			d.shrinkFiles()
			return true
		}
	}
	return false
}

// shrinkFiles goes back to a slice once the map holds few paths: a map
// never gives its memory back.
func (d *dir) shrinkFiles() {
	m := d.fileMap()
	if m == nil || len(m)+len(d.files) > maxSmall/2 {
		return
	}
	files := make([]file, 0, len(m)+len(d.files))
	files = append(files, d.files...)
	for p, r := range m {
		files = append(files, file{h: segHash(lastSegment(p)), r: r})
	}
	d.files, d.more.fileMap = files, nil
	d.tidy()
}

// visitFile calls fn for the refs of plain path q in d; h is the hash of
// q's last segment.
func (d *dir) visitFile(q string, h uint32, fn func(ref) bool, pattern func(ref) string) bool {
	if r, ok := d.fileMap()[q]; ok && !fn(r) {
		return false
	}
	for _, f := range d.files {
		if f.h == h && pattern(f.r) == q && !fn(f.r) {
			return false
		}
	}
	return true
}

// walkFiles calls fn for each file of d and its path.
func (d *dir) walkFiles(fn func(ref, string) bool, pattern func(ref) string) bool {
	for _, f := range d.files {
		if !fn(f.r, pattern(f.r)) {
			return false
		}
	}
	for p, r := range d.fileMap() {
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
