package bolt

import (
	"fmt"
	"os"
)

// recover copies into the bbolt file the journal's events beyond last, its
// last Seq, and returns the new last Seq. Damage that hides acknowledged
// events fails with a *CorruptError and changes nothing; a torn last
// record, never acknowledged, is dropped and said in the log.
func (l *Ledger) recover(last uint64) (uint64, error) {
	segs, err := l.j.all()
	if err != nil {
		return 0, err
	}
	s := scanJournal(l.path, segs, last, l.cfg.MaxInFlight)
	if s.damage != nil {
		return 0, s.damage
	}
	if s.torn != nil {
		l.log.Warn("journal ends in a torn record, dropped: it was never acknowledged", "file", s.torn.File, "offset", s.torn.Offset, "event", s.torn.Seq, "cause", s.torn.Cause)
	}
	if len(s.ents) == 0 {
		return last, nil
	}
	if err := l.put(s.ents); err != nil {
		return 0, fmt.Errorf("copy journal into bbolt: %w", err)
	}
	l.log.Info("journal recovered", "events", len(s.ents), "last-seq", s.ents[len(s.ents)-1].seq)
	return s.ents[len(s.ents)-1].seq, nil
}

// readSegments reads the journal segments of the ledger at path whole; a
// segment that does not exist reads as empty.
func readSegments(path string) ([][]byte, error) {
	segs := make([][]byte, journalSegments)
	for i := range segs {
		b, err := os.ReadFile(segmentPath(path, i))
		if err != nil && !os.IsNotExist(err) {
			return nil, fmt.Errorf("read journal: %w", err)
		}
		segs[i] = b
	}
	return segs, nil
}

// resetJournal removes the segments of a ledger whose bbolt file is new,
// once it is sure they hold nothing: a journal with records next to a
// missing or new bbolt file is the rest of a ledger whose file was lost,
// and removing it would lose its events for good.
func resetJournal(path string) error {
	if err := checkOrphanJournal(path); err != nil {
		return err
	}
	for i := range journalSegments {
		if err := os.Remove(segmentPath(path, i)); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("reset journal: %w", err)
		}
	}
	return nil
}

// checkOrphanJournal fails if a journal segment of the ledger at path
// holds anything but zeros.
func checkOrphanJournal(path string) error {
	segs, err := readSegments(path)
	if err != nil {
		return err
	}
	for i, seg := range segs {
		if off, first, ok := newerRecord(seg, 0, 0); ok {
			return &CorruptError{File: path, Offset: -1, Seq: first,
				Cause: fmt.Sprintf("the file is missing or new, but %s holds events (from byte %d, event %d on); restore the file or run `leasegate ledger recover`", segmentPath(path, i), off, first)}
		}
		if nonZero(seg) {
			return &CorruptError{File: path, Offset: -1,
				Cause: fmt.Sprintf("the file is missing or new, but %s holds %d bytes of data; restore the file or run `leasegate ledger recover`", segmentPath(path, i), len(seg))}
		}
	}
	return nil
}

func nonZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return true
		}
	}
	return false
}
