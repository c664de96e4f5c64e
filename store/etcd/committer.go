package etcd

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasegate/leasegate/gate"
)

// run commits everything queued, one transaction at a time, until Close.
func (l *Ledger) run() {
	defer close(l.done)
	for {
		batch, ok := l.take()
		if !ok {
			return
		}
		for len(batch) > 0 && !l.closing() {
			batch = l.commit(batch)
		}
		for _, r := range batch {
			r.finish(nil, errClosed())
		}
	}
}

// take waits for queued requests and takes them all; false once closed.
func (l *Ledger) take() ([]*request, bool) {
	for {
		l.mu.Lock()
		batch, closed := l.queue, l.closed
		l.queue = nil
		l.mu.Unlock()
		if closed {
			return nil, false
		}
		if len(batch) > 0 {
			return batch, true
		}
		<-l.wake
	}
}

// commit commits the longest head of batch that fits MaxBatchBytes (at
// least one request) and returns the rest.
func (l *Ledger) commit(batch []*request) []*request {
	l.commitMu.Lock()
	defer l.commitMu.Unlock()
	if l.conflict != nil {
		for _, r := range batch {
			r.finish(nil, l.conflict)
		}
		return nil
	}
	if stale := l.stale(batch); stale > 0 {
		for _, r := range batch[:stale] {
			r.finish(nil, &ConflictError{Seen: l.last.Load(), Revision: l.headRev, Stale: true})
		}
		return batch[stale:]
	}
	first := l.last.Load() + 1
	n, out, val := l.encode(batch, first)
	if n == 0 {
		batch[0].finish(nil, errTooManyGrants(grants(batch[0].evs)))
		return batch[1:]
	}
	last := first + uint64(len(out)) - 1
	l.committing.Store(last)
	rev, err := l.put(first, last, val)
	l.committing.Store(0)
	if err != nil && l.seenHead.Load() > l.last.Load() {
		// A head the watch reported while this commit was in flight, taken
		// for this commit's own, was another writer's.
		notify(l.recheck)
	}
	if err == nil {
		numberGrants(out, rev)
		l.observe(len(out))
	}
	off := 0
	for _, r := range batch[:n] {
		if err != nil {
			r.finish(nil, err)
			continue
		}
		r.finish(out[off:off+len(r.evs)], nil)
		off += len(r.evs)
	}
	return batch[n:]
}

// stale counts the requests at the head of batch queued before the last
// CatchUp that brought in other writers' events.
func (l *Ledger) stale(batch []*request) int {
	epoch := l.epoch.Load()
	n := 0
	for n < len(batch) && batch[n].epoch < epoch {
		n++
	}
	return n
}

// encode gives the first n requests' events their seqs from first and
// encodes them as one record, a JSON array, its grants without tokens
// (numberGrants gives them theirs once the commit's revision is known).
// It takes at least one request unless that one alone holds more grants
// than a commit can number (n is 0).
func (l *Ledger) encode(batch []*request, first uint64) (n int, out []gate.Event, val []byte) {
	val = append(val, '[')
	seq := first
	granted := 0
	for _, r := range batch {
		if granted += grants(r.evs); granted > maxGrantsPerCommit {
			break
		}
		start := len(val)
		for _, e := range r.evs {
			e = unnumbered(e)
			e.Seq = seq
			seq++
			b, err := json.Marshal(e.UTC())
			if err != nil { // gate.Event always encodes; keep the record valid regardless
				b = []byte("null")
			}
			if len(val) > 1 {
				val = append(val, ',')
			}
			val = append(val, b...)
			out = append(out, e)
		}
		if n > 0 && len(val) > l.cfg.MaxBatchBytes {
			val = val[:start]
			out = out[:len(out)-len(r.evs)]
			break
		}
		n++
	}
	return n, out, append(val, ']')
}

// grants counts the grants among evs.
func grants(evs []gate.Event) int {
	n := 0
	for _, e := range evs {
		if e.Type == gate.EventGranted {
			n++
		}
	}
	return n
}

// commitWait bounds one attempt of a commit's transaction; past it the
// outcome is settled by reading back, as after any failure. A member whose
// proposal was lost with the leader answers only after etcd's request
// timeout (7 s by default), though a new leader is elected within about a
// second; a slow commit given up on this side is found written when read
// back, so waiting less costs a read, never a second record.
const commitWait = 2 * time.Second

// put writes one record and the head in a transaction conditioned on the
// head being as last seen, settling unknown outcomes until etcd answers,
// and returns the revision of the commit.
func (l *Ledger) put(first, last uint64, val []byte) (int64, error) {
	for {
		actx, cancel := context.WithTimeout(l.ctx, commitWait)
		resp, err := l.cli.Txn(actx).
			If(clientv3.Compare(clientv3.ModRevision(l.keys.head()), "=", l.headRev)).
			Then(clientv3.OpPut(l.keys.record(first), string(val)), clientv3.OpPut(l.keys.head(), strconv.FormatUint(last, 10)), l.sessionOp()).
			Commit()
		cancel()
		if err == nil {
			if !resp.Succeeded {
				l.conflict = &ConflictError{Seen: first - 1, Revision: resp.Header.Revision}
				l.log.Info("append lost a race", "seen-seq", first-1, "revision", resp.Header.Revision)
				return 0, l.conflict
			}
			l.committed(first, last, resp.Header.Revision, val)
			return resp.Header.Revision, nil
		}
		if isLeaseGone(err) {
			return 0, l.sessionLost(first, err)
		}
		l.log.Warn("commit outcome unknown, asking etcd again", "first-seq", first, "error", err)
		if rev, done, err := l.settle(first, last, val, err); done {
			return rev, err
		}
	}
}

// committed moves the ledger past its own record of seqs first..last,
// written as val at revision rev.
func (l *Ledger) committed(first, last uint64, rev int64, val []byte) {
	l.headRev = rev
	l.lastRec = recordID{key: l.keys.record(first), rev: rev, sum: checksum(val)}
	l.last.Store(last)
	l.raiseRev(rev)
}

// settle finds out, after a failed transaction, whether the record was
// written at revision rev (done, nil), another writer moved the head
// (done, conflict), or nothing happened (not done: try again). It waits
// Retry first and gives up when the ledger is closed.
func (l *Ledger) settle(first, last uint64, val []byte, cause error) (rev int64, done bool, err error) {
	t := time.NewTimer(l.cfg.Retry)
	defer t.Stop()
	select {
	case <-l.ctx.Done():
		return 0, true, fmt.Errorf("commit of seq %d outcome unknown when the ledger closed (%v): %w", first, cause, errClosed())
	case <-t.C:
	}
	resp, err := l.cli.Txn(l.ctx).Then(clientv3.OpGet(l.keys.record(first)), clientv3.OpGet(l.keys.head())).Commit()
	if err != nil {
		return 0, false, nil
	}
	rec, head := resp.Responses[0].GetResponseRange().Kvs, resp.Responses[1].GetResponseRange().Kvs
	switch {
	case len(rec) == 1 && string(rec[0].Value) == string(val):
		l.committed(first, last, rec[0].ModRevision, val)
		return rec[0].ModRevision, true, nil
	case len(head) == 1 && head[0].ModRevision != l.headRev:
		l.conflict = &ConflictError{Seen: first - 1, Revision: resp.Header.Revision}
		return 0, true, l.conflict
	}
	return 0, false, nil
}
