package etcd

import (
	"context"
	"math"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Changes reports, on a channel with room for one signal, that the head
// may have moved: once at the start, after every commit of another writer
// (and of its own, when the watch is faster than the answer), and
// after every restart of the underlying watch (an error, a compaction, a
// lost member), so a CatchUp after each signal misses nothing; CatchUp
// reads by range from LastSeq, never from a watch's revision, so a
// compacted history costs nothing. The channel closes when ctx ends or the
// ledger is closed.
func (l *Ledger) Changes(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	go func() {
		defer close(ch)
		for ctx.Err() == nil && l.ctx.Err() == nil {
			l.watchHead(ctx, ch)
			t := time.NewTimer(l.cfg.Retry)
			select {
			case <-ctx.Done():
			case <-l.ctx.Done():
			case <-t.C:
			}
			t.Stop()
		}
	}()
	return ch
}

// watchHead signals ch once and then on every change of the head, until
// the watch ends.
func (l *Ledger) watchHead(ctx context.Context, ch chan<- struct{}) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(l.ctx, cancel)
	defer stop()
	wch := l.cli.Watch(clientv3.WithRequireLeader(ctx), l.keys.head())
	l.restarts.Add(1) // what changed while no watch ran is not known
	notify(ch)
	for {
		select {
		case resp, ok := <-wch:
			if !ok {
				return
			}
			if err := resp.Err(); err != nil {
				l.log.Warn("watch of the ledger head ended, starting again", "error", err)
				return
			}
			if l.ahead(resp.Events) {
				notify(ch)
			}
		case <-l.recheck:
			l.restarts.Add(1) // Behind: the ledger may have gone back
			notify(ch)
		case <-l.answered:
			if l.wentBack(ctx) {
				l.restarts.Add(1)
				notify(ch)
			}
		}
	}
}

// ahead reports whether a watched change moved the head past the events
// this ledger has seen, that is, was not its own commit, and notes the
// highest head seen for Behind.
func (l *Ledger) ahead(evs []*clientv3.Event) bool {
	moved := false
	for _, e := range evs {
		seq, err := parseSeq(e.Kv.Value)
		if err != nil {
			seq = math.MaxUint64
		}
		l.sawHead(seq)
		if seq > l.ownHead() {
			moved = true
		}
	}
	return moved
}

// sawHead raises the highest head the watch has reported to seq.
func (l *Ledger) sawHead(seq uint64) {
	for {
		old := l.seenHead.Load()
		if seq <= old || l.seenHead.CompareAndSwap(old, seq) {
			return
		}
	}
}

// Behind reports whether another writer may have committed what this
// ledger has not read yet: the head watch reported a head past LastSeq,
// or the watch (re)started after the last CatchUp or Reload began, so a
// change may have gone unreported. A writer whose own commits are in
// flight asks it before it throws them away to catch up: when it is
// false, every head change the watch reported was its own.
func (l *Ledger) Behind() bool {
	return l.restarts.Load() != l.caughtRestarts.Load() || l.seenHead.Load() > l.ownHead()
}

// ownHead is the highest seq this ledger has read or written, or is
// writing now: the watch often reports the head of a commit before the
// commit's answer arrives (after etcd restarted, every time), and that
// head is this ledger's own. Before, each such commit made its writer
// rebuild its table from the ledger, and publish the commit's events
// twice: once read back as another writer's, once as its own.
func (l *Ledger) ownHead() uint64 { return max(l.last.Load(), l.committing.Load()) }

func notify(ch chan<- struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
