package bolt_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
	"github.com/leasegate/leasegate/store/bolt"
)

var t0 = time.Date(2025, time.March, 3, 9, 0, 0, 0, time.UTC)

func notices(who string, n int) []gate.Event {
	evs := make([]gate.Event, n)
	for i := range evs {
		evs[i] = gate.Event{Type: gate.EventNotice, At: t0, Actor: who, Path: fmt.Sprintf("%s/%d", who, i)}
	}
	return evs
}

type result struct {
	evs []gate.Event
	err error
}

func goAppend(ctx context.Context, l *bolt.Ledger, evs ...gate.Event) <-chan result {
	ch := make(chan result, 1)
	go func() {
		got, err := l.Append(ctx, evs...)
		ch <- result{got, err}
	}()
	return ch
}

// stalled holds a ledger's committer inside its first commit, so that the
// Appends made meanwhile queue up, and records the size of every commit.
type stalled struct {
	l       *bolt.Ledger
	first   <-chan result // the Append whose commit is held
	entered chan struct{}
	release chan struct{}

	mu    sync.Mutex
	sizes []int
	fail  error // returned by every commit after the first
}

func stall(t *testing.T, cfg bolt.Config) *stalled {
	t.Helper()
	s := &stalled{l: mustOpen(t, tempLedgerPath(t), cfg), entered: make(chan struct{}), release: make(chan struct{})}
	bolt.SetCommitHook(s.l, s.commit)
	s.first = goAppend(context.Background(), s.l, notices("first", 1)...)
	<-s.entered
	t.Cleanup(s.resume)
	return s
}

func (s *stalled) commit(n int) error {
	s.mu.Lock()
	s.sizes = append(s.sizes, n)
	first, fail := len(s.sizes) == 1, s.fail
	s.mu.Unlock()
	if first {
		close(s.entered)
		<-s.release
		return nil
	}
	return fail
}

// enqueue starts an Append and waits until it is queued behind the held
// commit, so that calls queue in the order they are made.
func (s *stalled) enqueue(ctx context.Context, evs ...gate.Event) <-chan result {
	want := bolt.Queued(s.l) + 1
	ch := goAppend(ctx, s.l, evs...)
	for bolt.Queued(s.l) < want {
		runtime.Gosched()
	}
	return ch
}

// resume lets the held commit finish; it may be called more than once.
func (s *stalled) resume() {
	select {
	case <-s.release:
	default:
		close(s.release)
	}
}

func (s *stalled) commits() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.sizes)
}

func (s *stalled) setFail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = err
}

func mustResult(t *testing.T, name string, ch <-chan result, wantSeqs ...uint64) {
	t.Helper()
	r := <-ch
	if r.err != nil {
		t.Fatalf("Append(%s) = %v", name, r.err)
	}
	var got []uint64
	for _, e := range r.evs {
		got = append(got, e.Seq)
	}
	if !slices.Equal(got, wantSeqs) {
		t.Fatalf("Append(%s) seqs = %v, want %v", name, got, wantSeqs)
	}
}

// TestGroupCommit: Appends that queue while a commit is on disk share the
// next commit, in queue order, each call contiguous.
func TestGroupCommit(t *testing.T) {
	s := stall(t, testConfig(t))
	a := s.enqueue(context.Background(), notices("a", 2)...)
	b := s.enqueue(context.Background(), notices("b", 1)...)
	c := s.enqueue(context.Background(), notices("c", 3)...)
	s.resume()
	mustResult(t, "first", s.first, 1)
	mustResult(t, "a", a, 2, 3)
	mustResult(t, "b", b, 4)
	mustResult(t, "c", c, 5, 6, 7)
	if got := s.commits(); !slices.Equal(got, []int{1, 6}) {
		t.Fatalf("commit sizes = %v, want [1 6]", got)
	}
	bs := s.l.Batches()
	if bs.Commits != 2 || bs.Events != 7 || bs.Counts[0] != 1 || bs.Counts[2] != 1 || bs.Counts[3] != 2 {
		t.Fatalf("Batches() = %d commits of %d events, cumulative counts %v over %v; want 2 of 7: one of 1, one of 6",
			bs.Commits, bs.Events, bs.Counts, bs.Bounds)
	}
}

// TestMaxBatch: a commit carries at most MaxBatch events, a call that would
// overflow it waits for the next commit, and a call larger than MaxBatch
// commits alone.
func TestMaxBatch(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxBatch = 4
	s := stall(t, cfg)
	a := s.enqueue(context.Background(), notices("a", 3)...)
	b := s.enqueue(context.Background(), notices("b", 1)...)
	c := s.enqueue(context.Background(), notices("c", 3)...)
	d := s.enqueue(context.Background(), notices("d", 5)...)
	s.resume()
	mustResult(t, "a", a, 2, 3, 4)
	mustResult(t, "b", b, 5)
	mustResult(t, "c", c, 6, 7, 8)
	mustResult(t, "d", d, 9, 10, 11, 12, 13)
	if got := s.commits(); !slices.Equal(got, []int{1, 4, 3, 5}) {
		t.Fatalf("commit sizes with MaxBatch 4 = %v, want [1 4 3 5]", got)
	}
}

// TestFailedCommitFailsBatch: a commit that fails fails every call in it,
// writes none of their events and leaves LastSeq where it was.
func TestFailedCommitFailsBatch(t *testing.T) {
	s := stall(t, testConfig(t))
	diskFull := errors.New("disk full")
	s.setFail(diskFull)
	queued := []<-chan result{
		s.enqueue(context.Background(), notices("a", 2)...),
		s.enqueue(context.Background(), notices("b", 1)...),
	}
	s.resume()
	mustResult(t, "first", s.first, 1)
	for i, ch := range queued {
		if r := <-ch; !errors.Is(r.err, diskFull) || r.evs != nil {
			t.Fatalf("Append %d in a failed commit = %v, %v, want nil, %v", i, r.evs, r.err, diskFull)
		}
	}
	if got := s.l.LastSeq(); got != 1 {
		t.Fatalf("LastSeq() after a failed commit = %d, want 1", got)
	}
	s.setFail(nil)
	got, err := s.l.Append(context.Background(), notices("after", 1)...)
	if err != nil || got[0].Seq != 2 {
		t.Fatalf("Append after a failed commit = %v, %v, want seq 2", got, err)
	}
	checkStored(t, s.l, "first/0", "after/0")
}

// TestUnencodableCallFailsAlone: a call whose event cannot be encoded
// fails and takes no Seq; the calls batched with it commit.
func TestUnencodableCallFailsAlone(t *testing.T) {
	s := stall(t, testConfig(t))
	bad := notices("bad", 2)
	bad[1].Data = json.RawMessage(`{not json`)
	a := s.enqueue(context.Background(), notices("a", 1)...)
	b := s.enqueue(context.Background(), bad...)
	c := s.enqueue(context.Background(), notices("c", 1)...)
	s.resume()
	mustResult(t, "a", a, 2)
	if r := <-b; r.err == nil {
		t.Fatalf("Append(invalid JSON data) = %v, want an error", r.evs)
	}
	mustResult(t, "c", c, 3)
	checkStored(t, s.l, "first/0", "a/0", "c/0")
}

// TestCloseFailsQueuedAppends: Close lets the commit in progress finish and
// fails the Appends queued behind it with ErrClosed.
func TestCloseFailsQueuedAppends(t *testing.T) {
	s := stall(t, testConfig(t))
	queued := []<-chan result{
		s.enqueue(context.Background(), notices("a", 1)...),
		s.enqueue(context.Background(), notices("b", 2)...),
	}
	closed := make(chan error, 1)
	go func() { closed <- s.l.Close() }()
	bolt.WaitClosing(s.l)
	s.resume()
	mustResult(t, "first", s.first, 1)
	for i, ch := range queued {
		if r := <-ch; !errors.Is(r.err, store.ErrClosed) {
			t.Fatalf("Append %d queued at Close = %v, want %v", i, r.err, store.ErrClosed)
		}
	}
	if err := <-closed; err != nil {
		t.Fatalf("Close() = %v", err)
	}
	r := mustOpen(t, s.l.Path(), testConfig(t))
	if got := r.LastSeq(); got != 1 {
		t.Fatalf("LastSeq() after reopen = %d, want 1", got)
	}
}

// TestAppendOutlivesItsContext: once queued, an Append reports its commit
// even when its ctx ends first.
func TestAppendOutlivesItsContext(t *testing.T) {
	s := stall(t, testConfig(t))
	ctx, cancel := context.WithCancel(context.Background())
	a := s.enqueue(ctx, notices("a", 2)...)
	cancel()
	s.resume()
	mustResult(t, "a", a, 2, 3)
	checkStored(t, s.l, "first/0", "a/0", "a/1")
}

// checkStored replays l and compares the events' paths.
func checkStored(t *testing.T, l *bolt.Ledger, want ...string) {
	t.Helper()
	var got []string
	if err := l.Replay(context.Background(), 0, func(e gate.Event) error {
		got = append(got, e.Path)
		return nil
	}); err != nil {
		t.Fatalf("Replay(0) = %v", err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Replay(0) paths = %v, want %v", got, want)
	}
}

// TestAppendGivesUpWhileQueueIsFull: an Append waiting for room in a full
// queue returns when its ctx ends, and its events are never written.
func TestAppendGivesUpWhileQueueIsFull(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxBatch = 1 // the queue holds one Append
	s := stall(t, cfg)
	a := s.enqueue(context.Background(), notices("a", 1)...)
	ctx, cancel := context.WithCancel(context.Background())
	b := goAppend(ctx, s.l, notices("b", 1)...)
	cancel()
	if r := <-b; !errors.Is(r.err, context.Canceled) {
		t.Fatalf("Append(ctx cancelled while the queue is full) = %v, want %v", r.err, context.Canceled)
	}
	s.resume()
	mustResult(t, "a", a, 2)
	checkStored(t, s.l, "first/0", "a/0")
}
