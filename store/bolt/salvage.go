package bolt

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/leasegate/leasegate/gate"
)

// Salvage is every event that can be read from a ledger's files and where
// reading broke: what `leasegate ledger check` reports and `leasegate
// ledger recover` rebuilds a ledger from.
type Salvage struct {
	Events     []gate.Event    // every readable event, by Seq; there may be holes
	FileEvents int             // how many of them the bbolt file holds
	FileLast   uint64          // the Seq of the bbolt file's last readable event
	Segments   []SegmentRun    // per journal segment, its readable records from its start
	Damage     []*CorruptError // where reading broke; empty when Open would start
	Torn       *CorruptError   // a torn last journal record, never acknowledged
}

// SegmentRun is what a journal segment holds from its start.
type SegmentRun struct {
	File        string
	First, Last uint64 // the Seqs of its first and last readable event, 0 if none
	End         int64  // where its readable records end
}

// Missing returns the Seqs up to the last readable event that no file
// holds readably, as [from, to] ranges.
func (s *Salvage) Missing() [][2]uint64 {
	var out [][2]uint64
	next := uint64(1)
	for _, e := range s.Events {
		if e.Seq > next {
			out = append(out, [2]uint64{next, e.Seq - 1})
		}
		next = e.Seq + 1
	}
	return out
}

// ReadAll reads every event it can from the ledger at path and its
// journal, changing nothing. It refuses (store.ErrLocked) while a
// coordinator holds the ledger open.
func ReadAll(path string) (*Salvage, error) {
	unlock, err := lockFile(path, false)
	if err != nil {
		return nil, err
	}
	defer unlock()
	segs, err := readSegments(path)
	if err != nil {
		return nil, err
	}
	s := &Salvage{}
	found := map[uint64]gate.Event{}
	s.readFile(path, found)
	s.FileEvents = len(found)
	s.readJournal(path, segs, found)
	for _, e := range found {
		s.Events = append(s.Events, e)
	}
	slices.SortFunc(s.Events, func(a, b gate.Event) int { return cmp.Compare(a.Seq, b.Seq) })
	return s, nil
}

// readFile reads the bbolt file's events into found, noting damage.
func (s *Salvage) readFile(path string, found map[uint64]gate.Event) {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() == 0 {
		if err := checkOrphanJournal(path); err != nil {
			s.Damage = append(s.Damage, asCorrupt(path, err))
		}
		return
	}
	m, err := checkMeta(path, fi.Size())
	if err == nil {
		err = checkPages(path, m)
	}
	if err != nil {
		s.Damage = append(s.Damage, asCorrupt(path, err))
		return
	}
	err = guard(path, func() error {
		db, err := bbolt.Open(path, fileMode, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
		if err != nil {
			return err
		}
		defer db.Close()
		return db.View(func(tx *bbolt.Tx) error { return s.readEvents(path, tx, found) })
	})
	if err != nil {
		s.Damage = append(s.Damage, asCorrupt(path, err))
	}
}

// readEvents reads the events bucket, noting undecodable events and holes.
func (s *Salvage) readEvents(path string, tx *bbolt.Tx, found map[uint64]gate.Event) error {
	b := tx.Bucket(eventsBucket)
	if b == nil {
		return fmt.Errorf("no %q bucket", eventsBucket)
	}
	next := uint64(1)
	return b.ForEach(func(k, v []byte) error {
		seq, err := decodeKey(k)
		if err != nil {
			s.Damage = append(s.Damage, asCorrupt(path, err))
			return nil
		}
		if seq > next {
			s.Damage = append(s.Damage, &CorruptError{File: path, Offset: -1, Seq: next, Cause: fmt.Sprintf("events %d to %d are missing", next, seq-1)})
		}
		next, s.FileLast = seq+1, seq
		e, err := decodeEvent(seq, v)
		if err != nil {
			s.Damage = append(s.Damage, &CorruptError{File: path, Offset: -1, Seq: seq, Cause: err.Error()})
			return nil
		}
		found[seq] = e
		return nil
	})
}

// readJournal adds every readable journal record's events that found
// lacks, wherever in a segment they are (records of earlier rounds too),
// and notes where the journal breaks as Open would see it.
func (s *Salvage) readJournal(path string, segs [][]byte, found map[uint64]gate.Event) {
	scan := scanJournal(path, segs, s.FileLast, 1)
	if scan.damage != nil {
		s.Damage = append(s.Damage, scan.damage)
	}
	s.Torn = scan.torn
	for _, r := range scan.runs {
		run := SegmentRun{File: segmentPath(path, r.seg), End: int64(r.end)}
		if len(r.ents) > 0 {
			run.First, run.Last = r.ents[0].seq, r.ents[len(r.ents)-1].seq
		}
		s.Segments = append(s.Segments, run)
	}
	for _, seg := range segs {
		for off := 0; off < len(seg); {
			ents, n, err := readRecord(seg, off)
			if err != nil {
				off++
				continue
			}
			for _, en := range ents {
				if _, ok := found[en.seq]; ok {
					continue
				}
				if e, err := decodeEvent(en.seq, en.value); err == nil {
					found[en.seq] = e
				}
			}
			off += n
		}
	}
}

func asCorrupt(path string, err error) *CorruptError {
	if ce, ok := err.(*CorruptError); ok {
		return ce
	}
	return &CorruptError{File: path, Offset: -1, Cause: err.Error()}
}
