package bolt

import (
	"fmt"
	"slices"

	"github.com/leasegate/leasegate/gate"
)

// MakeRoom makes sure the journal can take evs as one commit, the very
// next one, without a segment growing on the commit's write. A commit
// larger than the room its segment has left is written past the segment's
// zero-filled end, and on a full disk that write fails the ledger for good
// (ErrFailed at the coordinator); MakeRoom grows the segment the commit
// will go to beforehand, zero-filled and synced, so that a full disk
// refuses the commit before it is decided, with the cause (ENOSPC), and
// the ledger goes on. It returns nil at once when the commit fits, and
// nil for events that do not encode (their Append fails alone). Commits
// queued ahead of it are the caller's to bound: the coordinator refuses
// writes while less than 128 KiB of room is left.
func (l *Ledger) MakeRoom(evs ...gate.Event) error {
	// Nearly every commit is a few small events far from the segment's
	// end: a bound of its size counted without encoding it answers those
	// without encoding every mutation twice under the caller's lock.
	if l.off.Load()+sizeBound(evs) <= l.cfg.JournalSize {
		return nil
	}
	// A Seq of 19 digits sizes the record for any Seq the ledger will
	// reach.
	buf, _, err := frame(nil, slices.Clone(evs), 1<<62)
	if err != nil {
		return nil
	}
	n := int64(len(buf))
	// Every segment has at least JournalSize bytes, zero-filled when it
	// was created: a commit that fits in the rest of the active one needs
	// nothing (the common case, without taking mu).
	if l.off.Load()+n <= l.cfg.JournalSize {
		return nil
	}
	// Holding mu keeps the committer from reserving (commit) or rotating
	// (rotateIfFull) meanwhile: every write in flight is below off, so the
	// zeros go only where no commit is.
	l.mu.Lock()
	defer l.mu.Unlock()
	active, off := l.j.active, l.j.off
	other := (active + 1) % journalSegments
	otherBusy := l.mem.busy[other]
	// Where commit will put it (rotateIfFull): in the active segment if it
	// is empty, if the commit fits its zero-filled size, or if the other
	// segment is not copied yet; else at the start of the other one. The
	// copy may finish before the commit, so the other one must take it
	// too when the active one is full.
	if off == 0 || off+n <= l.cfg.JournalSize || otherBusy {
		if err := l.grow(active, off+n, n); err != nil {
			return err
		}
	}
	if off != 0 && off+n > l.cfg.JournalSize {
		return l.grow(other, n, n)
	}
	return nil
}

// grow zero-fills segment seg to size bytes, if it is smaller, for a
// commit of n bytes. Call with l.mu held.
func (l *Ledger) grow(seg int, size, n int64) error {
	if _, err := fill(l.j.segs[seg], size, l.j.noSync); err != nil {
		return fmt.Errorf("make room in the journal for a commit of %d bytes: %w", n, err)
	}
	return nil
}

// Allowances of sizeBound for what is not a string: keys, punctuation,
// numbers (at most 20 digits) and times (at most 37 bytes quoted) of an
// event, of its lease and of its operator, and the framing of one event
// (its length and newline) and of the record.
const (
	eventFixed    = 512
	leaseFixed    = 512
	operatorFixed = 128
	fileFixed     = 80
	pathFixed     = 4
)

// sizeBound is at least the size of the record frame makes of evs: a
// string takes at most 6 bytes a byte in JSON (\u00XX), raw data too
// (encoding/json escapes <, > and & in it), and everything else fits the
// fixed allowances. TestSizeBound holds it to frame on random events.
func sizeBound(evs []gate.Event) int64 {
	n := recordHead + bodyHead
	for i := range evs {
		e := &evs[i]
		n += eventFixed + 6*(len(e.Type)+len(e.Actor)+len(e.LeaseID)+len(e.Reason)+len(e.Path)+len(e.Data))
		if l := e.Lease; l != nil {
			n += leaseFixed + 6*(len(l.ID)+len(l.Owner.Name)+len(l.Owner.Host)+len(l.Kind)+len(l.Scope.Type)+
				len(l.State)+len(l.ReleaseReason)+len(l.EndedBy))
			for _, p := range l.Scope.Paths {
				n += pathFixed + 6*len(p)
			}
			for _, f := range l.Scope.Files {
				n += fileFixed + 6*len(f.Path)
			}
		}
		if b := e.By; b != nil {
			n += operatorFixed + 6*(len(b.Comm)+len(b.Source))
		}
	}
	return int64(n)
}
