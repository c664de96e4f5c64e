package bolt

import (
	"fmt"
	"runtime"
)

// run is the committer: it takes everything queued and sends it to the
// journal as one commit (one synchronous write), then goes straight on to
// whatever queued meanwhile. No timer: while commits are on their way to
// disk (MaxInFlight at most) the next batch gathers by itself. It returns
// when Close is called, once the commits in flight have settled.
func (l *Ledger) run() {
	defer close(l.stopped)
	defer l.flights.Wait()
	var carry *request
	for !l.closing() {
		first := carry
		if first == nil {
			select {
			case <-l.quit:
				return
			case first = <-l.reqs:
			}
		}
		if l.takeHook != nil {
			l.takeHook()
		}
		// The batch is cut once a commit may start, not before: what
		// queues while MaxInFlight commits are on their way joins it,
		// where cutting first would send one request alone and make the
		// rest wait for the commit after it.
		select {
		case <-l.quit:
			return // first was not taken: its waiter gets ErrClosed
		case l.slots <- struct{}{}:
		}
		// Yield once before cutting the batch. The callers the last
		// commit woke usually append again at once; one scheduler turn
		// lets them queue, where cutting at once would commit the first
		// of them alone and alternate batches of one and of all the rest
		// (about half the throughput with 16 callers on 2 cores). This
		// is a yield, not a timer: an idle ledger commits immediately.
		runtime.Gosched()
		var batch []*request
		batch, carry = l.collect(first)
		if !l.commit(batch) {
			<-l.slots
		}
	}
}

// collect takes first and every request already queued, up to MaxBatch
// events. A request that would overflow the batch is carried to the next.
func (l *Ledger) collect(first *request) (batch []*request, carry *request) {
	batch = []*request{first}
	n := len(first.events)
	for n < l.cfg.MaxBatch {
		select {
		case r := <-l.reqs:
			if n+len(r.events) > l.cfg.MaxBatch {
				return batch, r
			}
			batch = append(batch, r)
			n += len(r.events)
		default:
			return batch, nil
		}
	}
	return batch, nil
}

// commit frames a batch, reserves its place in the journal and sends it
// on its way to disk in the slot the caller took; up to MaxInFlight
// commits may be on their way at once, and they settle in order. It
// reports whether it sent one; if not, the slot is still the caller's.
func (l *Ledger) commit(batch []*request) bool {
	if err := l.failed(); err != nil {
		for _, r := range batch {
			r.finish(err)
		}
		return false
	}
	buf, spans, ok := l.encode(batch)
	if len(ok) == 0 {
		return false
	}
	if err := l.hook(len(spans)); err != nil {
		for _, r := range ok {
			r.finish(err)
		}
		return false
	}
	l.rotateIfFull(len(buf))
	f := &flight{calls: ok, buf: buf, spans: spans, prev: l.last, done: make(chan struct{})}
	// The place is reserved under mu, which MakeRoom holds while it grows
	// a segment past its end.
	l.mu.Lock()
	f.seg, f.off = l.j.reserve(len(buf))
	l.off.Store(l.j.off)
	l.mu.Unlock()
	l.written += uint64(len(spans))
	l.last = f.done
	l.flights.Add(1)
	go l.fly(f)
	return true
}

// flight is one commit on its way to disk.
type flight struct {
	calls []*request
	buf   []byte
	spans []span
	seg   int
	off   int64
	prev  <-chan struct{} // closed once the commit before this one settled
	done  chan struct{}   // closed once this one settled
}

// fly writes a commit and settles it after the one before: a commit is
// acknowledged only when every commit before it is on disk, so what a
// crash leaves is always a prefix of what was acknowledged and more. A
// failed write fails this and every later commit: what reached the disk
// is unknown.
func (l *Ledger) fly(f *flight) {
	defer l.flights.Done()
	err := l.writeTest(len(f.spans))
	if err == nil {
		err = l.j.writeAt(f.seg, f.off, f.buf)
	}
	<-f.prev
	if err != nil {
		err = fmt.Errorf("append: commit of %d events: %w", len(f.spans), err)
		l.log.Error("commit failed", "events", len(f.spans), "error", err)
		l.fail(err)
	}
	if err = l.failed(); err == nil {
		l.committed(f.seg, cut(f.buf, f.spans))
	}
	for _, r := range f.calls {
		r.finish(err)
	}
	close(f.done)
	// The slot is given back last: the committer, waiting for it, is
	// then the goroutine to run next here, ahead of the callers just
	// answered.
	<-l.slots
}

// writeTest runs the test hook, if any, in place of a commit's write.
func (l *Ledger) writeTest(events int) error {
	if l.writeHook == nil {
		return nil
	}
	return l.writeHook(events)
}

// hook runs the test hook, if any, before a commit is written.
func (l *Ledger) hook(events int) error {
	if l.commitHook == nil {
		return nil
	}
	if err := l.commitHook(events); err != nil {
		return fmt.Errorf("append: commit of %d events: %w", events, err)
	}
	return nil
}

// committed makes a commit's events visible (LastSeq, Replay).
func (l *Ledger) committed(seg int, ents []entry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.mem.add(seg, ents)
	l.batches.Observe(len(ents))
	l.lastSeq.Add(uint64(len(ents))) // ents run from LastSeq()+1 without gaps
}

// rotateIfFull moves commits to the other segment when a commit of n
// bytes would not fit in the active one (a segment never grows past the
// zero-filled space it was given, which a full disk may not have) and the
// other one's events are in the bbolt file: it waits for the commits in
// flight, seals the active segment for the copier and starts writing the
// other from its start. While the copier lags (or fails, see Headroom),
// and for a commit larger than a segment, the active segment grows
// instead.
func (l *Ledger) rotateIfFull(n int) {
	if l.j.off == 0 || l.j.off+int64(n) <= l.cfg.JournalSize {
		return
	}
	next := (l.j.active + 1) % journalSegments
	l.mu.Lock()
	busy := l.mem.busy[next]
	l.mu.Unlock()
	if busy {
		return
	}
	<-l.last
	l.mu.Lock()
	l.mem.seal(l.j.active)
	l.j.rotate()
	l.off.Store(0)
	l.mu.Unlock()
	select {
	case l.copyReq <- struct{}{}:
	default:
	}
}

// encode assigns Seqs in queue order, after the commits in flight, and
// frames each request's events as one journal record. A request that does
// not encode fails alone and takes no Seqs.
func (l *Ledger) encode(batch []*request) (buf []byte, spans []span, ok []*request) {
	next := l.written + 1
	buf = make([]byte, 0, 512*len(batch))
	for _, r := range batch {
		var s []span
		var err error
		if buf, s, err = frame(buf, r.events, next); err != nil {
			r.finish(err)
			continue
		}
		spans = append(spans, s...)
		ok = append(ok, r)
		next += uint64(len(s))
	}
	return buf, spans, ok
}
