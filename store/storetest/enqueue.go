package storetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
)

// enqueueCalls is how many calls the EnqueueAck scenarios keep in flight.
const enqueueCalls = 40

// ackRecord is what one call's ack saw.
type ackRecord struct {
	calls   int
	err     error
	lastSeq uint64        // the ledger's LastSeq when ack ran
	done    chan struct{} // closed by the first ack
}

// enqueueAll queues enqueueCalls calls of one to three events from one
// goroutine without waiting, and returns their waits and ack records.
func enqueueAll(l store.Ledger) ([]func() ([]gate.Event, error), []*ackRecord, *sync.Mutex) {
	var mu sync.Mutex
	waits := make([]func() ([]gate.Event, error), enqueueCalls)
	acks := make([]*ackRecord, enqueueCalls)
	for c := range enqueueCalls {
		rec := &ackRecord{done: make(chan struct{})}
		acks[c] = rec
		in := notes(fmt.Sprintf("call-%02d", c), 1+c%3)
		waits[c] = l.EnqueueAck(func(err error) {
			mu.Lock()
			defer mu.Unlock()
			rec.calls++
			if rec.calls == 1 {
				rec.err, rec.lastSeq = err, l.LastSeq()
				close(rec.done)
			}
		}, in...)
	}
	return waits, acks, &mu
}

// testEnqueueAckOrder queues many calls without waiting: they commit in
// the order they were queued, each call's events contiguous, and the
// ledger replays exactly that.
func testEnqueueAckOrder(t *testing.T, o opener) {
	l, _ := o.open(t)
	waits, _, _ := enqueueAll(l)
	var want []uint64
	bySeq := make(map[uint64]gate.Event)
	for c, wait := range waits {
		got, err := wait()
		if err != nil {
			t.Fatalf("wait(call %d) = %v", c, err)
		}
		if n := 1 + c%3; len(got) != n {
			t.Fatalf("wait(call %d) returned %d events, want %d", c, len(got), n)
		}
		for _, e := range got {
			if e.Actor != fmt.Sprintf("call-%02d", c) {
				t.Fatalf("wait(call %d) returned an event of %s", c, e.Actor)
			}
			bySeq[e.Seq] = e
		}
		want = append(want, seqs(got)...)
	}
	if first := want[0]; !slices.Equal(want, span(first, first+uint64(len(want))-1)) || first != 1 {
		t.Fatalf("seqs in queue order = %v, want 1..%d", want, len(want))
	}
	checkReplayMatches(t, l, bySeq)
}

// testEnqueueAckDurable checks that each call is acknowledged once, with
// the outcome its wait reports, only when LastSeq covers its events, and
// that what was acknowledged is there after reopening.
func testEnqueueAckDurable(t *testing.T, o opener) {
	l, reopen := o.open(t)
	waits, acks, mu := enqueueAll(l)
	var last uint64
	for c, wait := range waits {
		got, err := wait()
		if err != nil {
			t.Fatalf("wait(call %d) = %v", c, err)
		}
		last = got[len(got)-1].Seq
		select {
		case <-acks[c].done:
		default:
			// The coordinator answers its caller from the ack and counts
			// the commit there: a wait that returns first lets a reader
			// see the commit before its ack has run.
			t.Fatalf("wait(call %d) returned before its ack ran, want the ack first", c)
		}
		mu.Lock()
		rec := *acks[c]
		mu.Unlock()
		if rec.err != nil {
			t.Fatalf("ack(call %d) = %v, want nil as its wait reported", c, rec.err)
		}
		if rec.lastSeq < last {
			t.Fatalf("ack(call %d) ran at LastSeq %d, before its last event %d was committed", c, rec.lastSeq, last)
		}
	}
	mustClose(t, l)
	for c, rec := range acks {
		if rec.calls != 1 {
			t.Fatalf("ack(call %d) called %d times, want once", c, rec.calls)
		}
	}
	if got := len(replayAll(t, reopen(), 0)); uint64(got) != last {
		t.Fatalf("reopened ledger replays %d events, want the %d acknowledged", got, last)
	}
}

// testEnqueueAckClosed checks that a call queued after Close reports
// ErrClosed through wait (and ack, if called) and writes nothing.
func testEnqueueAckClosed(t *testing.T, o opener) {
	l, reopen := o.open(t)
	mustAppend(t, l, notes("alice", 1)...)
	mustClose(t, l)
	var mu sync.Mutex
	var acked []error
	wait := l.EnqueueAck(func(err error) {
		mu.Lock()
		defer mu.Unlock()
		acked = append(acked, err)
	}, notes("alice", 2)...)
	if got, err := wait(); !errors.Is(err, store.ErrClosed) || got != nil {
		t.Fatalf("wait(EnqueueAck after Close) = %v, %v, want nil, %v", got, err, store.ErrClosed)
	}
	mu.Lock()
	for _, err := range acked {
		if !errors.Is(err, store.ErrClosed) {
			t.Errorf("ack(EnqueueAck after Close) = %v, want %v", err, store.ErrClosed)
		}
	}
	mu.Unlock()
	if got := reopen().LastSeq(); got != 1 {
		t.Fatalf("LastSeq() after reopen = %d, want 1 (the EnqueueAck after Close wrote nothing)", got)
	}
}

// testEnqueueAckNotInCall checks that ack never runs inside EnqueueAck,
// for a call committed, a call of no events and a call after Close: the
// coordinator calls EnqueueAck under the lock its ack takes.
func testEnqueueAckNotInCall(t *testing.T, o opener) {
	l, _ := o.open(t)
	for _, tc := range []struct {
		name    string
		evs     []gate.Event
		closed  bool
		wantErr error
	}{
		{name: "committed", evs: notes("alice", 1)},
		{name: "no events"},
		{name: "after close", evs: notes("alice", 1), closed: true, wantErr: store.ErrClosed},
	} {
		if tc.closed {
			mustClose(t, l)
		}
		got, err := enqueueLocked(t, l, tc.evs)()
		if !errors.Is(err, tc.wantErr) || tc.wantErr == nil && len(got) != len(tc.evs) {
			t.Fatalf("wait(EnqueueAck, %s) = %d events, %v; want %d, %v", tc.name, len(got), err, len(tc.evs), tc.wantErr)
		}
	}
}

// enqueueLocked calls EnqueueAck while holding a lock that its ack takes,
// as the coordinator does. An ack run inside EnqueueAck would wait for
// the lock forever; after a while the test lets go of it, so the call
// returns, and fails.
func enqueueLocked(t *testing.T, l store.Ledger, evs []gate.Event) func() ([]gate.Event, error) {
	t.Helper()
	lock := make(chan struct{}, 1) // a lock that any goroutine may release
	lock <- struct{}{}
	ack := func(error) {
		lock <- struct{}{}
		<-lock
	}
	returned := make(chan func() ([]gate.Event, error), 1)
	go func() { returned <- l.EnqueueAck(ack, evs...) }()
	select {
	case wait := <-returned:
		<-lock
		return wait
	case <-time.After(10 * time.Second):
		t.Errorf("EnqueueAck(%d events) did not return while its caller held the lock its ack takes: ack ran inside EnqueueAck", len(evs))
		<-lock
		return <-returned
	}
}
