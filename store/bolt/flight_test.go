package bolt_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leasegate/leasegate/store/bolt"
)

// heldWrite holds the first commit's write until release, and fails it
// with fail (if set); later writes go through.
type heldWrite struct {
	calls   atomic.Int32
	entered chan struct{}
	release chan struct{}
	fail    error
}

func holdFirstWrite(l *bolt.Ledger, fail error) *heldWrite {
	h := &heldWrite{entered: make(chan struct{}), release: make(chan struct{}), fail: fail}
	bolt.SetWriteHook(l, func(int) error {
		if h.calls.Add(1) == 1 {
			close(h.entered)
			<-h.release
			return h.fail
		}
		return nil
	})
	return h
}

// inFlight waits until n commits have reached their write.
func (h *heldWrite) inFlight(n int32) {
	for h.calls.Load() < n {
		runtime.Gosched()
	}
}

// TestCommitsSettleInOrder: with two commits in flight, the second is
// acknowledged only once the first is on disk, with the next Seqs.
func TestCommitsSettleInOrder(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxInFlight = 2
	l := mustOpen(t, tempLedgerPath(t), cfg)
	h := holdFirstWrite(l, nil)
	a := goAppend(context.Background(), l, notices("a", 1)...)
	<-h.entered
	b := goAppend(context.Background(), l, notices("b", 2)...)
	h.inFlight(2)
	if got := l.LastSeq(); got != 0 {
		t.Fatalf("LastSeq() while the first commit is held = %d, want 0", got)
	}
	close(h.release)
	mustResult(t, "b", b, 2, 3)
	if got := l.LastSeq(); got != 3 {
		t.Fatalf("LastSeq() when the second commit returned = %d, want 3", got)
	}
	mustResult(t, "a", a, 1)
	checkStored(t, l, "a/0", "b/0", "b/1")
}

// TestFailedWriteFailsLaterCommits: when a commit's write fails, the
// commit written after it fails too (it was never acknowledged, and a
// reopen does not find it), and so does every later Append.
func TestFailedWriteFailsLaterCommits(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxInFlight = 2
	path := tempLedgerPath(t)
	l := mustOpen(t, path, cfg)
	diskGone := errors.New("disk gone")
	h := holdFirstWrite(l, diskGone)
	a := goAppend(context.Background(), l, notices("a", 1)...)
	<-h.entered
	b := goAppend(context.Background(), l, notices("b", 1)...)
	h.inFlight(2)
	close(h.release)
	for name, ch := range map[string]<-chan result{"a": a, "b": b} {
		if r := <-ch; !errors.Is(r.err, diskGone) {
			t.Fatalf("Append(%s) with the first write failed = %v, %v; want %v", name, r.evs, r.err, diskGone)
		}
	}
	if _, err := l.Append(context.Background(), notices("later", 1)...); !errors.Is(err, diskGone) {
		t.Fatalf("Append after a failed write = %v, want %v", err, diskGone)
	}
	if got := l.LastSeq(); got != 0 {
		t.Fatalf("LastSeq() after failed writes = %d, want 0", got)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	// Reopened as it was written, with two commits in flight: b's record
	// after a's hole was never acknowledged.
	if got, last := storedPathsWith(t, path, cfg); len(got) != 0 || last != 0 {
		t.Fatalf("after reopen %q, LastSeq() %d; want nothing (b's record follows a hole)", got, last)
	}
}

// TestBatchGathersWhileCommitsFly: what queues while the one commit
// allowed in flight is on its way is committed together after it, not
// the first of it alone and then the rest.
func TestBatchGathersWhileCommitsFly(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxInFlight = 1
	l := mustOpen(t, tempLedgerPath(t), cfg)
	var sizes []int // only the committer's goroutines append, one at a time
	entered, release := make(chan struct{}), make(chan struct{})
	releaseOnce := sync.OnceFunc(func() { close(release) })
	t.Cleanup(releaseOnce) // before the ledger's Close, which waits for the write
	bolt.SetWriteHook(l, func(events int) error {
		sizes = append(sizes, events)
		if len(sizes) == 1 {
			close(entered)
			<-release
		}
		return nil
	})
	first := goAppend(context.Background(), l, notices("first", 1)...)
	<-entered
	// The committer takes the next Append at once and then waits for the
	// slot; what comes after it waits in the queue meanwhile.
	const later = 5
	taken := make(chan struct{}, 1)
	bolt.SetTakeHook(l, func() {
		select {
		case taken <- struct{}{}:
		default:
		}
	})
	rest := []<-chan result{goAppend(context.Background(), l, notices("later0", 1)...)}
	<-taken
	for i := 1; i < later; i++ {
		rest = append(rest, goAppend(context.Background(), l, notices(fmt.Sprint("later", i), 1)...))
	}
	deadline := time.Now().Add(10 * time.Second)
	for bolt.Queued(l) != later-1 {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d Appends left in the queue: the committer cut a batch while no commit could start", bolt.Queued(l), later-1)
		}
		runtime.Gosched()
	}
	releaseOnce()
	mustResult(t, "first", first, 1)
	for i, ch := range rest {
		if r := <-ch; r.err != nil {
			t.Fatalf("later%d: %v", i, r.err)
		}
	}
	if want := []int{1, later}; !slices.Equal(sizes, want) {
		t.Fatalf("commits carried %v events, want %v", sizes, want)
	}
}
