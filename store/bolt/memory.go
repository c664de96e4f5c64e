package bolt

// memory holds the committed events that are in the journal but not yet in
// the bbolt file, so that Replay sees every committed event. The Ledger's
// mu guards it.
type memory struct {
	sealed    []segmentEvents       // full segments waiting for the copier, oldest first
	active    []entry               // events in the segment taking commits
	busy      [journalSegments]bool // the segment holds events not yet in the bbolt file
	copiedSeq uint64                // the last Seq in the bbolt file
}

// segmentEvents are the events of one sealed segment.
type segmentEvents struct {
	seg  int
	ents []entry
}

// add records events committed to segment seg.
func (m *memory) add(seg int, ents []entry) {
	m.active = append(m.active, ents...)
	m.busy[seg] = true
}

// seal hands the active segment's events to the copier.
func (m *memory) seal(seg int) {
	if len(m.active) > 0 {
		m.sealed = append(m.sealed, segmentEvents{seg: seg, ents: m.active})
	}
	m.active = nil
}

// oldest is the sealed segment to copy next.
func (m *memory) oldest() (segmentEvents, bool) {
	if len(m.sealed) == 0 {
		return segmentEvents{}, false
	}
	return m.sealed[0], true
}

// copiedOldest forgets the oldest sealed segment once it is in the bbolt
// file, which frees its journal file for reuse.
func (m *memory) copiedOldest() {
	s := m.sealed[0]
	m.sealed = m.sealed[1:]
	m.busy[s.seg] = false
	m.copiedSeq = s.ents[len(s.ents)-1].seq
}

// copiedActive forgets the active segment's events once they are in the
// bbolt file (at Close, when nothing commits any more).
func (m *memory) copiedActive(seg int) {
	if len(m.active) > 0 {
		m.copiedSeq = m.active[len(m.active)-1].seq
	}
	m.active = nil
	m.busy[seg] = false
}

// from returns the events held from Seq from on, up to end and at most
// max, in one slice that later commits do not change.
func (m *memory) from(from, end uint64, max int) []entry {
	for _, ents := range m.lists() {
		if len(ents) == 0 || from < ents[0].seq || from > ents[len(ents)-1].seq {
			continue
		}
		i := int(from - ents[0].seq)
		n := min(len(ents)-i, int(end-from+1), max)
		return ents[i : i+n : i+n]
	}
	return nil
}

func (m *memory) lists() [][]entry {
	out := make([][]entry, 0, len(m.sealed)+1)
	for _, s := range m.sealed {
		out = append(out, s.ents)
	}
	return append(out, m.active)
}
