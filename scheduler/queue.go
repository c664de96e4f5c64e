package scheduler

import (
	"container/heap"
	"time"
)

// kind tells what an entry is for; it only selects the map that indexes it
// by key and the words of its log lines.
type kind int

const (
	kindRetry kind = iota
	kindIdle
	kindReminder
	kindSweep
)

func (k kind) String() string {
	return [...]string{"retry", "stop-idle", "reminder", "sweep"}[k]
}

// entry is one pending timer.
type entry struct {
	kind kind
	key  string
	due  time.Time
	fn   func(now time.Time)
	// expiresAt is the lease expiry a reminder is for; zero otherwise.
	expiresAt time.Time
	// seq orders entries with equal due times by when they were scheduled.
	seq uint64
	// index is the entry's position in its queue, or -1 once removed.
	index int
}

// queue is a min-heap of entries by (due, seq). It implements heap.Interface;
// use push, remove and popDue rather than the heap methods.
type queue struct {
	entries []*entry
	seq     uint64
}

func (q *queue) Len() int { return len(q.entries) }

func (q *queue) Less(i, j int) bool {
	a, b := q.entries[i], q.entries[j]
	if !a.due.Equal(b.due) {
		return a.due.Before(b.due)
	}
	return a.seq < b.seq
}

func (q *queue) Swap(i, j int) {
	q.entries[i], q.entries[j] = q.entries[j], q.entries[i]
	q.entries[i].index = i
	q.entries[j].index = j
}

// Push is heap.Interface's; call push.
func (q *queue) Push(x any) {
	e := x.(*entry)
	e.index = len(q.entries)
	q.entries = append(q.entries, e)
}

// Pop is heap.Interface's; call popDue or remove.
func (q *queue) Pop() any {
	n := len(q.entries) - 1
	e := q.entries[n]
	q.entries[n] = nil
	q.entries = q.entries[:n]
	e.index = -1
	return e
}

// push adds e and reports whether it became the earliest entry.
func (q *queue) push(e *entry) bool {
	q.seq++
	e.seq = q.seq
	heap.Push(q, e)
	return e.index == 0
}

// remove takes e out of the queue if it is still there. Removing the
// earliest entry leaves Run's clock timer armed for it; when that fires,
// Run finds nothing due and arms the next.
func (q *queue) remove(e *entry) {
	if e != nil && e.index >= 0 {
		heap.Remove(q, e.index)
	}
}

// next returns the earliest entry, or nil.
func (q *queue) next() *entry {
	if len(q.entries) == 0 {
		return nil
	}
	return q.entries[0]
}

// popDue removes and returns the earliest entry if it is due at now.
func (q *queue) popDue(now time.Time) *entry {
	if e := q.next(); e != nil && !now.Before(e.due) {
		return heap.Pop(q).(*entry)
	}
	return nil
}
