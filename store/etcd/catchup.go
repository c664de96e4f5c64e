package etcd

import (
	"context"

	"github.com/leasegate/leasegate/gate"
)

// CatchUp calls fn for every event other writers committed after LastSeq,
// in order, and moves LastSeq and the head the next commit is conditioned
// on past them, which clears a lost race: appends succeed again. Commits
// wait meanwhile. If fn fails, LastSeq stays at the last event it
// accepted and appends keep failing until a CatchUp completes.
func (l *Ledger) CatchUp(ctx context.Context, fn func(gate.Event) error) error {
	if l.closing() {
		return errClosed()
	}
	l.commitMu.Lock()
	defer l.commitMu.Unlock()
	resp, err := l.cli.Get(ctx, l.keys.head())
	if err != nil {
		return err
	}
	var end uint64
	var headRev int64
	if len(resp.Kvs) == 1 {
		if end, err = parseSeq(resp.Kvs[0].Value); err != nil {
			return err
		}
		headRev = resp.Kvs[0].ModRevision
	}
	last := l.last.Load()
	if end > last {
		got, err := l.scan(ctx, last, end, resp.Header.Revision, fn)
		l.last.Store(got)
		if err != nil {
			return err
		}
	}
	l.headRev = headRev
	l.conflict = nil
	return nil
}
