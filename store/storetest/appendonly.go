package storetest

import (
	"context"
	"sync"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
)

// AppendOnly returns l with Enqueue and EnqueueAck made of l's own Append,
// one call at a time in the order they were queued. A test double that
// embeds a real ledger and overrides only Append (to fail or hold it)
// would otherwise keep the real ledger's EnqueueAck, and the coordinator,
// which appends through EnqueueAck, would never meet the injected fault.
func AppendOnly(l store.Ledger) store.Ledger {
	return &appendOnly{Ledger: l}
}

type appendOnly struct {
	store.Ledger
	mu   sync.Mutex
	last chan struct{} // closed when the call queued last has finished
}

// NumbersGrants passes on whether l fixes grants' tokens itself: the
// events l's Append returns are the ones its waits give.
func (l *appendOnly) NumbersGrants() bool {
	n, ok := l.Ledger.(store.GrantNumberer)
	return ok && n.NumbersGrants()
}

func (l *appendOnly) Enqueue(evs ...gate.Event) func() ([]gate.Event, error) {
	return l.EnqueueAck(nil, evs...)
}

// EnqueueAck appends evs once every call queued before it has finished.
// Its goroutine ends when that Append returns; Close of the ledger ends a
// waiting one with ErrClosed.
func (l *appendOnly) EnqueueAck(ack func(error), evs ...gate.Event) func() ([]gate.Event, error) {
	done := make(chan struct{})
	l.mu.Lock()
	prev := l.last
	l.last = done
	l.mu.Unlock()
	var out []gate.Event
	var err error
	go func() {
		defer close(done)
		if prev != nil {
			<-prev
		}
		out, err = l.Ledger.Append(context.Background(), evs...)
		if ack != nil {
			ack(err)
		}
	}()
	return func() ([]gate.Event, error) {
		<-done
		return out, err
	}
}
