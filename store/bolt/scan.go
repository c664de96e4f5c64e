package bolt

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
)

// journalScan is what the journal segments of a ledger hold beyond the
// bbolt file's last event.
type journalScan struct {
	ents   []entry       // the events that continue the bbolt file, in order
	damage *CorruptError // set when acknowledged events cannot be read back
	torn   *CorruptError // a record after the last one that was begun and not finished
	runs   []segmentRun  // per segment, its readable records from its start
}

// segmentRun is the readable records at the start of one segment.
type segmentRun struct {
	seg  int
	ents []entry
	end  int // where they end
}

// scanJournal reads the segments of the ledger at path (segs[i] is
// segment i whole) after last, the bbolt file's last Seq.
//
// The committer writes one commit at a time, each after the one before is
// on disk, and writes a segment over from its start only once its events
// are in the bbolt file. So on disk every record of an event after the
// last readable one was written after it: a record that checks out and
// holds a later event, anywhere, means an acknowledged record before it
// is damaged. A record that was only begun (its header names the next
// event, its body does not check out) and nothing after it is a torn
// write, never acknowledged; anything else after the last record is what
// earlier rounds left. With more than one commit in flight (inFlight > 1)
// a later commit may reach the disk before an earlier one that a crash
// then cuts short, so a record after a hole proves nothing: the scan then
// ends at the hole, as at a torn write.
func scanJournal(path string, segs [][]byte, last uint64, inFlight int) journalScan {
	var s journalScan
	for i, seg := range segs {
		ents, end := unframe(seg)
		s.runs = append(s.runs, segmentRun{seg: i, ents: ents, end: end})
	}
	s.ents, s.damage = chain(path, s.runs, last)
	if s.damage != nil {
		return s
	}
	next := last
	if len(s.ents) > 0 {
		next = s.ents[len(s.ents)-1].seq
	}
	for _, r := range s.runs {
		seg := segs[r.seg]
		if off, first, ok := newerRecord(seg, r.end, next); ok && inFlight <= 1 {
			_, _, why := readRecord(seg, r.end)
			s.damage = &CorruptError{File: segmentPath(path, r.seg), Offset: int64(r.end), Seq: next + 1,
				Cause: fmt.Sprintf("%v, and a readable record of event %d follows at byte %d", why, first, off)}
			return s
		}
		if begun(seg, r.end, next+1) {
			_, _, why := readRecord(seg, r.end)
			s.torn = &CorruptError{File: segmentPath(path, r.seg), Offset: int64(r.end), Seq: next + 1, Cause: why.Error()}
		}
	}
	return s
}

// begun reports whether the bytes at off start the header of a record of
// event seq.
func begun(seg []byte, off int, seq uint64) bool {
	return off+recordHead+bodyHead <= len(seg) && binary.BigEndian.Uint64(seg[off+recordHead:]) == seq
}

// chain joins the runs into the events that follow last, in order. A gap
// means an acknowledged event is lost.
func chain(path string, runs []segmentRun, last uint64) ([]entry, *CorruptError) {
	sorted := slices.Clone(runs)
	sorted = slices.DeleteFunc(sorted, func(r segmentRun) bool { return len(r.ents) == 0 })
	slices.SortFunc(sorted, func(a, b segmentRun) int { return cmp.Compare(a.ents[0].seq, b.ents[0].seq) })
	var out []entry
	next := last + 1
	for _, r := range sorted {
		for _, e := range r.ents {
			switch {
			case e.seq < next:
				continue
			case e.seq > next:
				return out, &CorruptError{File: segmentPath(path, r.seg), Offset: -1, Seq: next,
					Cause: fmt.Sprintf("events %d to %d are missing before event %d", next, e.seq-1, e.seq)}
			}
			out = append(out, e)
			next++
		}
	}
	return out, nil
}
