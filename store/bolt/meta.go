package bolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// bbolt's file starts with two meta pages; each names the page size and
// the high-water mark (how many pages the file has). bbolt maps the file
// and trusts the meta page: a file shorter than its meta says faults
// (SIGBUS) on the first read past its end, which no recover catches. So
// Open reads the meta pages itself first. The layout is bbolt's (v1.x),
// in the machine's byte order: a 16-byte page header, then
// magic u32 | version u32 | page size u32 | flags u32 | root u64 | sequence u64 |
// freelist u64 | high-water mark u64 | txid u64 | checksum u64 (FNV-64a of what precedes it).
const (
	boltPageHeader = 16
	boltMetaSize   = 64
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
	boltNoFreelist = ^uint64(0)
)

// boltMeta is what Open needs of one meta page.
type boltMeta struct {
	pageSize uint32
	root     uint64
	freelist uint64
	pages    uint64 // the high-water mark
	txid     uint64
}

// checkMeta refuses a bbolt file whose meta pages bbolt would trust into
// a fault: no valid meta page, or fewer bytes than the valid one with the
// highest transaction id says the file has.
func checkMeta(path string, size int64) (boltMeta, error) {
	f, err := os.Open(path)
	if err != nil {
		return boltMeta{}, fmt.Errorf("check ledger file: %w", err)
	}
	defer f.Close()
	m0, err0 := readMeta(f, 0)
	at := int64(os.Getpagesize())
	if err0 == nil {
		at = int64(m0.pageSize)
	}
	m1, err1 := readMeta(f, at)
	m := m0
	switch {
	case err0 != nil && err1 != nil:
		return m, &CorruptError{File: path, Offset: 0, Cause: fmt.Sprintf("no valid bbolt meta page (page 0: %v; page 1: %v)", err0, err1)}
	case err0 != nil, err1 == nil && m1.txid > m0.txid:
		m = m1
	}
	if need := int64(m.pages) * int64(m.pageSize); size < need {
		return m, &CorruptError{File: path, Offset: size, Cause: fmt.Sprintf("the file is %d bytes but its meta page (transaction %d) says %d: truncated", size, m.txid, need)}
	}
	return m, nil
}

// readMeta reads and validates the meta page at off.
func readMeta(f *os.File, off int64) (boltMeta, error) {
	buf := make([]byte, boltPageHeader+boltMetaSize)
	if _, err := f.ReadAt(buf, off); err != nil {
		if errors.Is(err, io.EOF) {
			return boltMeta{}, errors.New("past the end of the file")
		}
		return boltMeta{}, err
	}
	b := buf[boltPageHeader:]
	ne := binary.NativeEndian
	sum := fnv.New64a()
	_, _ = sum.Write(b[:56])
	m := boltMeta{pageSize: ne.Uint32(b[8:]), root: ne.Uint64(b[16:]), freelist: ne.Uint64(b[32:]), pages: ne.Uint64(b[40:]), txid: ne.Uint64(b[48:])}
	switch {
	case ne.Uint32(b) != boltMagic:
		return m, errors.New("not a bbolt meta page")
	case ne.Uint32(b[4:]) != boltVersion:
		return m, fmt.Errorf("bbolt version %d", ne.Uint32(b[4:]))
	case ne.Uint64(b[56:]) != sum.Sum64():
		return m, errors.New("checksum mismatch")
	case m.pageSize < 512 || m.pageSize&(m.pageSize-1) != 0:
		return m, fmt.Errorf("page size %d", m.pageSize)
	case m.root >= m.pages, m.freelist != boltNoFreelist && m.freelist >= m.pages:
		return m, fmt.Errorf("root page %d or freelist page %d beyond the high-water mark %d", m.root, m.freelist, m.pages)
	}
	return m, nil
}
