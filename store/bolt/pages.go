package bolt

import (
	"encoding/binary"
	"fmt"
	"os"
)

// bbolt's page layout (v1.x, the machine's byte order): a 16-byte header
// id u64 | flags u16 | count u16 | overflow u32, then count elements of
// 16 bytes: on a branch page pos u32 | key size u32 | child page u64, on
// a leaf page flags u32 | pos u32 | key size u32 | value size u32, with
// pos counted from the element. A leaf element flagged as a bucket holds
// root page u64 | sequence u64, followed by an inline leaf page when the
// root is 0.
const (
	boltBranchPage  = 0x01
	boltLeafPage    = 0x02
	boltBucketLeaf  = 0x01
	boltElementSize = 16
	boltBucketHead  = 16
)

// checkPages walks the page tree from the root bucket as bbolt will when
// it rebuilds its freelist at Open. bbolt does that in a goroutine of its
// own, where no recover reaches, and trusts every page: one that is not
// where its id says, of an unknown kind, with elements that point outside
// it, or a cycle, would crash the process on every start. Such a file is
// refused instead.
func checkPages(path string, m boltMeta) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("check ledger file: %w", err)
	}
	w := pageWalker{data: data, size: int64(m.pageSize), pages: m.pages, seen: make(map[uint64]bool)}
	if err := w.page(m.root, 0); err != nil {
		return &CorruptError{File: path, Offset: w.at, Cause: "bbolt page tree: " + err.Error()}
	}
	return nil
}

// pageWalker checks the pages reachable from a root.
type pageWalker struct {
	data  []byte
	size  int64  // page size
	pages uint64 // the high-water mark
	seen  map[uint64]bool
	at    int64 // the offset of the page being checked
}

// maxDepth bounds the tree's depth; bbolt's trees are a handful deep.
const maxDepth = 64

func (w *pageWalker) page(id uint64, depth int) error {
	switch {
	case depth > maxDepth:
		return fmt.Errorf("page %d: deeper than %d levels", id, maxDepth)
	case id < 2 || id >= w.pages:
		return fmt.Errorf("page %d is outside pages 2 to %d", id, w.pages-1)
	case w.seen[id]:
		return fmt.Errorf("page %d is reached twice", id)
	}
	w.seen[id] = true
	w.at = int64(id) * w.size
	if w.at+boltPageHeader > int64(len(w.data)) {
		return fmt.Errorf("page %d is past the end of the file", id)
	}
	ne := binary.NativeEndian
	head := w.data[w.at:]
	overflow := uint64(ne.Uint32(head[12:]))
	if got := ne.Uint64(head); got != id {
		return fmt.Errorf("page %d says it is page %d", id, got)
	}
	end := w.at + int64(overflow+1)*w.size
	if id+overflow >= w.pages || end > int64(len(w.data)) {
		return fmt.Errorf("page %d runs %d pages past the high-water mark or the file", id, overflow)
	}
	return w.elements(w.data[w.at:end], id, depth)
}

// elements checks one page's elements and walks what they point to.
func (w *pageWalker) elements(p []byte, id uint64, depth int) error {
	ne := binary.NativeEndian
	flags, count := ne.Uint16(p[8:]), int(ne.Uint16(p[10:]))
	if flags != boltBranchPage && flags != boltLeafPage {
		return fmt.Errorf("page %d has flags %#x, neither branch nor leaf", id, flags)
	}
	if boltPageHeader+count*boltElementSize > len(p) {
		return fmt.Errorf("page %d: %d elements do not fit", id, count)
	}
	for i := range count {
		at := boltPageHeader + i*boltElementSize
		e := p[at:]
		if flags == boltBranchPage {
			if err := w.fits(p, at, int(ne.Uint32(e)), int(ne.Uint32(e[4:])), id); err != nil {
				return err
			}
			if err := w.page(ne.Uint64(e[8:]), depth+1); err != nil {
				return err
			}
			continue
		}
		pos, ksize, vsize := int(ne.Uint32(e[4:])), int(ne.Uint32(e[8:])), int(ne.Uint32(e[12:]))
		if err := w.fits(p, at, pos, ksize+vsize, id); err != nil {
			return err
		}
		if ne.Uint32(e)&boltBucketLeaf != 0 {
			if err := w.bucket(p[at+pos+ksize:at+pos+ksize+vsize], id, depth); err != nil {
				return err
			}
		}
	}
	return nil
}

// fits checks that n bytes from pos past the element at at lie in p.
func (w *pageWalker) fits(p []byte, at, pos, n int, id uint64) error {
	if pos < 0 || n < 0 || at+pos+n > len(p) {
		return fmt.Errorf("page %d: an element points outside the page", id)
	}
	return nil
}

// bucket walks a sub-bucket from its value: its root page, or its inline
// page.
func (w *pageWalker) bucket(v []byte, id uint64, depth int) error {
	if len(v) < boltBucketHead {
		return fmt.Errorf("page %d: a bucket value of %d bytes", id, len(v))
	}
	if root := binary.NativeEndian.Uint64(v); root != 0 {
		return w.page(root, depth+1)
	}
	inline := v[boltBucketHead:]
	if len(inline) < boltPageHeader {
		return fmt.Errorf("page %d: an inline bucket of %d bytes", id, len(inline))
	}
	return w.elements(inline, id, depth+1)
}
