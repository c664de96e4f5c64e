package etcd

import (
	"context"
	"fmt"
	"hash/fnv"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// A ledger goes back when etcd loses committed events: a cluster wiped and
// started empty at the same endpoints, or restored from a snapshot older
// than its last commits. A writer that goes on from what it had read
// would fold the others' new events onto a table the ledger no longer
// holds, and commit after a gap in the seqs that no replay accepts. So
// every catch-up checks, in the same read as the head, that the record
// holding the last seq read is still the one this ledger read or wrote; and since a writer with nothing to commit reads only
// when the head changes (and the client resumes its watch from the next
// revision, waiting silently on a cluster that went back), the session's
// keep-alive answers, which carry the cluster's revision, ask for a
// catch-up when that revision is below one already seen.

// recordID tells one record from any other that may take its key after
// the ledger went back: its key, the revision of its commit and a checksum
// of its value (revisions alone repeat, since writers doing the same
// things on a restored cluster count them the same way).
type recordID struct {
	key string
	rev int64
	sum uint64
}

func recordOf(kv *mvccpb.KeyValue) recordID {
	return recordID{key: string(kv.Key), rev: kv.ModRevision, sum: checksum(kv.Value)}
}

func checksum(val []byte) uint64 {
	h := fnv.New64a()
	h.Write(val)
	return h.Sum64()
}

// headChecked reads the head as headAt does and refuses, with a
// *WentBackError, a ledger that went back: it ends before LastSeq, etcd's
// revision is below that of the head last read (a linearizable read never
// is), or the record holding LastSeq is not the one this ledger read or
// wrote. The lost race stays, so nothing is committed until a Reload from
// the first event. Call with commitMu held.
func (l *Ledger) headChecked(ctx context.Context) (seq uint64, headRev, rev int64, err error) {
	last, known := l.last.Load(), l.lastRec
	seq, headRev, rev, held, err := l.headAt(ctx, last)
	if err != nil {
		return 0, 0, 0, err
	}
	if seq >= last && rev >= l.headRev && (last == 0 || known.key == "" || held == known) {
		l.raiseRev(rev)
		return seq, headRev, rev, nil
	}
	wb := &WentBackError{Seen: last, SeenRevision: l.headRev, Ends: seq, Revision: rev}
	l.conflict = &ConflictError{Seen: last, Revision: rev}
	return seq, headRev, rev, wb
}

// headAt reads, in one transaction, the head (its seq and ModRevision),
// the revision read at, and the record holding seq held (zero when held
// is 0 or no record holds it).
func (l *Ledger) headAt(ctx context.Context, held uint64) (seq uint64, headRev, rev int64, rec recordID, err error) {
	rctx, cancel := context.WithTimeout(ctx, l.cfg.DialTimeout)
	defer cancel()
	resp, err := l.cli.Txn(rctx).Then(clientv3.OpGet(l.keys.head()),
		clientv3.OpGet(l.keys.records(), clientv3.WithRange(l.keys.record(held)+"\x00"),
			clientv3.WithSort(clientv3.SortByKey, clientv3.SortDescend), clientv3.WithLimit(1))).Commit()
	if err != nil {
		return 0, 0, 0, rec, fmt.Errorf("read ledger head: %w", l.unanswered(ctx, rctx, err))
	}
	rev = resp.Header.Revision
	if kvs := resp.Responses[1].GetResponseRange().Kvs; held > 0 && len(kvs) == 1 {
		rec = recordOf(kvs[0])
	}
	head := resp.Responses[0].GetResponseRange().Kvs
	if len(head) == 0 {
		return 0, 0, rev, rec, nil
	}
	seq, err = parseSeq(head[0].Value)
	return seq, head[0].ModRevision, rev, rec, err
}

// raiseRev raises the highest etcd revision this ledger has seen to rev.
func (l *Ledger) raiseRev(rev int64) {
	for {
		old := l.highRev.Load()
		if rev <= old || l.highRev.CompareAndSwap(old, rev) {
			return
		}
	}
}

// wentBack reports whether the record holding the last seq read is gone
// or another now, or the ledger ends before it: one read, made at each
// keep-alive answer. The watch cannot see it: after a restore the head's
// next changes may take revisions the watch has already passed, and the
// cluster's revision may be above the highest seen again by the time a
// keep-alive answers, while the other writers are granted what this one's
// table still holds. A commit meanwhile moves the record on; the one read
// here then still holds the seq it was asked for, unless the ledger went
// back.
func (l *Ledger) wentBack(ctx context.Context) bool {
	l.commitMu.Lock()
	last, known := l.last.Load(), l.lastRec
	l.commitMu.Unlock()
	if last == 0 || known.key == "" {
		return false
	}
	seq, _, _, held, err := l.headAt(ctx, last)
	if err != nil || seq >= last && held == known {
		return false
	}
	l.log.Warn("the record of the last seq read is no longer in etcd; catching up", "seq", last, "ends", seq)
	return true
}

// revisionAnswered is told the cluster's revision in a keep-alive answer;
// one below a revision already seen asks the head watch for a catch-up,
// which finds out whether the ledger went back. A leader that has not yet
// applied what a follower answered can show a slightly older one: that
// costs one catch-up that finds nothing.
func (l *Ledger) revisionAnswered(rev int64) {
	if rev <= 0 || rev >= l.highRev.Load() {
		return
	}
	l.log.Warn("etcd's revision went back; catching up to see whether the ledger did", "revision", rev, "seen", l.highRev.Load())
	notify(l.recheck)
}
