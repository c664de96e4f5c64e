package bolt

import (
	"cmp"
	"fmt"
	"os"
	"slices"

	"github.com/leasegate/leasegate/store"
)

// recover copies into the bbolt file the journal's events beyond last, its
// last Seq, and returns the new last Seq. Each segment holds one run of
// records from its start; runs from earlier rounds hold only events the
// bbolt file has. The runs that go beyond last must continue it without a
// gap: a gap means a lost acknowledged event, and the ledger is corrupt.
func (l *Ledger) recover(last uint64) (uint64, error) {
	var runs [][]entry
	for i := range journalSegments {
		seg, err := l.j.contents(i)
		if err != nil {
			return 0, err
		}
		if run := unframe(seg); len(run) > 0 {
			runs = append(runs, run)
		}
	}
	ents, err := chain(runs, last)
	if err != nil || len(ents) == 0 {
		return last, err
	}
	if err := l.put(ents); err != nil {
		return 0, fmt.Errorf("copy journal into bbolt: %w", err)
	}
	l.log.Info("journal recovered", "events", len(ents), "last-seq", ents[len(ents)-1].seq)
	return ents[len(ents)-1].seq, nil
}

// chain joins runs into the events that follow last, in order.
func chain(runs [][]entry, last uint64) ([]entry, error) {
	slices.SortFunc(runs, func(a, b []entry) int { return cmp.Compare(a[0].seq, b[0].seq) })
	var out []entry
	next := last + 1
	for _, run := range runs {
		for _, e := range run {
			switch {
			case e.seq < next:
				continue
			case e.seq > next:
				return nil, fmt.Errorf("journal: events %d to %d missing before %d: %w", next, e.seq-1, e.seq, store.ErrCorrupt)
			}
			out = append(out, e)
			next++
		}
	}
	return out, nil
}

// resetJournal removes the segments of a ledger whose bbolt file is new:
// whatever they hold belongs to an earlier ledger at this path, and its
// sequence would collide with the new one.
func resetJournal(path string) error {
	for i := range journalSegments {
		if err := os.Remove(segmentPath(path, i)); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("reset journal: %w", err)
		}
	}
	return nil
}
