package bolt

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// journalSegments is how many journal files a ledger keeps: one takes
// commits while the other, once full, is copied into the bbolt file.
const journalSegments = 2

// journal is the write-ahead part of the ledger: two segment files that
// commits are appended to in turn, one synchronous write per commit (the
// write is durable when writeAt returns: on Linux the files are opened
// O_DSYNC, as a write and an fdatasync would; durable_*.go say how each
// platform gets there). A segment is written over
// from its start once its records are in the bbolt file, so after the
// first round every commit rewrites blocks the file system has already
// allocated (no metadata to journal). The committer reserves each commit's
// place in order; the writes themselves may run at once.
type journal struct {
	segs      [journalSegments]*os.File
	active    int   // segment taking commits
	off       int64 // where the next reserved commit goes in the active segment
	rotations int   // how many times commits moved to the other segment
	noSync    bool  // writes are not made durable (tests only)
}

// SegmentPath names journal segment i (0 or 1) of the ledger at path.
func SegmentPath(path string, i int) string { return segmentPath(path, i) }

// segmentPath names segment i of the ledger at path.
func segmentPath(path string, i int) string {
	return fmt.Sprintf("%s.journal.%d", path, i)
}

// openJournal opens (creating them, zero-filled to size bytes) the segment
// files of the ledger at path. A new file is synced with its directory, so
// that a later commit never depends on an allocation the disk may lose.
func openJournal(path string, size int64, noSync bool) (*journal, error) {
	j := &journal{noSync: noSync}
	created := false
	var before [journalSegments]int64 // each segment's size before it was filled
	for i := range j.segs {
		if fi, err := os.Stat(segmentPath(path, i)); err == nil {
			before[i] = fi.Size()
		}
		f, grew, err := openSegment(segmentPath(path, i), size, noSync)
		if err != nil {
			j.unfill(before)
			j.close()
			return nil, err
		}
		j.segs[i], created = f, created || grew
	}
	if created && !noSync {
		if err := syncDir(filepath.Dir(path)); err != nil {
			j.close()
			return nil, err
		}
	}
	return j, nil
}

// unfill cuts each segment opened so far back to its size before it was
// filled: a journal that could not be made whole (a full disk) leaves
// behind no zeros holding the space a later start needs.
func (j *journal) unfill(before [journalSegments]int64) {
	for i, f := range j.segs {
		if f != nil {
			_ = f.Truncate(before[i])
		}
	}
}

// openSegment opens one segment file and zero-fills it to size bytes.
func openSegment(path string, size int64, noSync bool) (*os.File, bool, error) {
	flags := os.O_RDWR | os.O_CREATE
	if !noSync {
		flags |= writeThrough
	}
	f, err := os.OpenFile(path, flags, fileMode)
	if err != nil {
		return nil, false, fmt.Errorf("open journal: %w", err)
	}
	grew, err := fill(f, size, noSync)
	if err != nil {
		f.Close()
		return nil, false, err
	}
	return f, grew, nil
}

// fill zero-fills f from its end to size bytes, durably, and reports
// whether it grew. On a failed write f is cut back to its size before:
// on a full disk the zeros that fit would otherwise keep the space that
// was left, and a commit refused for want of room is tried again (a dead
// owner's reclaim, every liveness round), each try taking whatever space
// is freed before the copy into the bbolt file can use it. Zeros that
// stay (the cut failed too) end a segment's records as its zero-filled
// space does.
func fill(f *os.File, size int64, noSync bool) (bool, error) {
	fi, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("fill journal: %w", err)
	}
	if fi.Size() >= size {
		return false, nil
	}
	if _, err := f.WriteAt(make([]byte, size-fi.Size()), fi.Size()); err != nil {
		_ = f.Truncate(fi.Size())
		// Said with the sizes: on a small file system (a 2 MiB tmpfs) a
		// bare "no space left on device" reads as a full disk where the
		// ledger alone needs more than there is.
		return false, fmt.Errorf("fill journal %s to %s (the ledger keeps %d journal segments of %s, %s in all, written ahead of its commits): %w",
			f.Name(), byteSize(size), journalSegments, byteSize(size), byteSize(journalSegments*size), err)
	}
	if !noSync {
		if err := f.Sync(); err != nil {
			return false, fmt.Errorf("sync journal %s: %w", f.Name(), err)
		}
	}
	return true, nil
}

// byteSize says n bytes in the largest binary unit that divides it
// (segments are sized in whole KiB or MiB).
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// reserve takes the next n bytes of the active segment for one commit.
// Only the committer calls it.
func (j *journal) reserve(n int) (seg int, off int64) {
	seg, off = j.active, j.off
	j.off += int64(n)
	return seg, off
}

// writeAt writes one commit's records where reserve put them; they are
// durable when it returns. Writes to distinct places may run at once. On
// error what reached the disk is unknown: the caller must stop using the
// journal.
func (j *journal) writeAt(seg int, off int64, buf []byte) error {
	if _, err := j.segs[seg].WriteAt(buf, off); err != nil {
		return fmt.Errorf("write journal: %w", err)
	}
	if j.noSync {
		return nil
	}
	return flushWrite(j.segs[seg])
}

// rotate makes the other segment the active one, written from its start.
// The caller must know that the other segment's records are in the bbolt
// file.
func (j *journal) rotate() {
	j.active = (j.active + 1) % journalSegments
	j.off = 0
	j.rotations++
}

// all reads every segment whole.
func (j *journal) all() ([][]byte, error) {
	segs := make([][]byte, len(j.segs))
	for i := range j.segs {
		var err error
		if segs[i], err = j.contents(i); err != nil {
			return nil, err
		}
	}
	return segs, nil
}

// contents reads segment i whole.
func (j *journal) contents(i int) ([]byte, error) {
	fi, err := j.segs[i].Stat()
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	buf := make([]byte, fi.Size())
	if _, err := j.segs[i].ReadAt(buf, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read journal %s: %w", j.segs[i].Name(), err)
	}
	return buf, nil
}

func (j *journal) close() error {
	var errs []error
	for _, f := range j.segs {
		if f != nil {
			errs = append(errs, f.Close())
		}
	}
	return errors.Join(errs...)
}
