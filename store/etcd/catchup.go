package etcd

import (
	"context"
	"errors"
	"fmt"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
)

// CatchUp calls fn for every event other writers committed after LastSeq,
// in order, and moves LastSeq and the head the next commit is conditioned
// on past them, which clears a lost race: appends succeed again. Commits
// wait meanwhile. If fn fails, LastSeq stays at the last event it
// accepted and appends keep failing until a CatchUp completes. Calls
// queued before a CatchUp that read any event were decided without those
// events: they fail with a *ConflictError (Stale) and write nothing.
func (l *Ledger) CatchUp(ctx context.Context, fn func(gate.Event) error) error {
	if l.closing() {
		return errClosed()
	}
	l.commitMu.Lock()
	defer l.commitMu.Unlock()
	restarts := l.restarts.Load()
	end, headRev, rev, err := l.headChecked(ctx)
	if err != nil {
		return err
	}
	last := l.last.Load()
	if end > last {
		got, held, err := l.scan(ctx, last, end, rev, fn)
		l.last.Store(got)
		l.epoch.Add(1)
		if got > last {
			l.lastRec = held
		}
		if err != nil {
			return err
		}
	}
	l.headRev = headRev
	l.conflict = nil
	l.caughtRestarts.Store(restarts)
	return nil
}

// Reload calls fn for every event of the ledger after seq after (from the
// first when after is 0), as Replay, and leaves the ledger where that read
// ended, as CatchUp; it clears a lost race. It is the way back for a
// writer whose table holds decisions the ledger refused: it rebuilds the
// table from a copy folded up to after, or from nothing. Every call queued
// before Reload fails with a *ConflictError (Stale), and no commit runs
// while it reads, so fn sees every event committed before the first one
// that is not refused.
func (l *Ledger) Reload(ctx context.Context, after uint64, fn func(gate.Event) error) error {
	if l.closing() {
		return errClosed()
	}
	l.commitMu.Lock()
	defer l.commitMu.Unlock()
	l.epoch.Add(1)
	restarts := l.restarts.Load()
	end, headRev, rev, err := l.headChecked(ctx)
	if after == 0 && errors.As(err, new(*WentBackError)) {
		err = nil // a reload from the first event starts over
		l.highRev.Store(rev)
	}
	if err != nil {
		return err
	}
	if after > end {
		return fmt.Errorf("%w: reload after seq %d, but the ledger ends at %d", store.ErrCorrupt, after, end)
	}
	if end > after {
		got, held, err := l.scan(ctx, after, end, rev, fn)
		if err != nil {
			return err
		}
		if got > after {
			l.lastRec = held
		}
	}
	if end == 0 {
		l.lastRec = recordID{}
	}
	l.last.Store(end)
	l.headRev = headRev
	l.conflict = nil
	l.caughtRestarts.Store(restarts)
	return nil
}
