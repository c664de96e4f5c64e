package watch

import (
	"context"
	"runtime"

	"github.com/fsnotify/fsnotify"
)

// batch is the events of one wake-up, one entry per path with the union of
// its operations, in the order the paths first came.
type batch struct {
	order  []string
	ops    map[string]fsnotify.Op
	events int
}

func newBatch() *batch { return &batch{ops: make(map[string]fsnotify.Op)} }

func (b *batch) add(ev fsnotify.Event) {
	b.events++
	if op, ok := b.ops[ev.Name]; ok {
		b.ops[ev.Name] = op | ev.Op
		return
	}
	b.ops[ev.Name] = ev.Op
	b.order = append(b.order, ev.Name)
}

func (b *batch) reset() {
	b.order = b.order[:0]
	clear(b.ops)
	b.events = 0
}

// drainYields is how many turns on the scheduler gather gives fsnotify's
// reader before it believes the event channel empty (see gather).
const drainYields = 2

// gather adds first to the batch, waits out the window, then takes every
// event that has arrived meanwhile. It reports false when ctx ended or the
// watcher closed.
//
// fsnotify's reader hands events over an unbuffered channel, so while the
// window runs it waits with the one event it holds and the kernel queues
// the rest, waking nobody: a buffered channel would let the reader wake for
// every few events and cost the coordinator half as much again. After each
// handover the reader needs a turn on the scheduler to offer the next
// event (and now and then a read of the kernel's queue), so an empty
// channel is believed only after drainYields yields. A reader that is
// slower still ends the batch early; its events start the next one.
func (wt *watcher) gather(ctx context.Context, first fsnotify.Event) bool {
	wt.batch.add(first)
	if wt.cfg.Window > 0 {
		t := wt.cfg.Clock.Timer(wt.cfg.Window)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
	}
	for yields := 0; wt.batch.events < maxBatch; {
		select {
		case ev, ok := <-wt.w.Events:
			if !ok {
				return false
			}
			wt.batch.add(ev)
			yields = 0
		default:
			if yields == drainYields {
				return true
			}
			runtime.Gosched()
			yields++
		}
	}
	return true
}
