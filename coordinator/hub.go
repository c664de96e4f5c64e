package coordinator

import (
	"sync"

	"github.com/leasegate/leasegate/gate"
)

// hub fans committed events out to subscribers (`leasegate events
// --follow`, sidecars waiting for notices). A subscriber that falls behind
// by more than its buffer is dropped and sees its channel closed.
type hub struct {
	mu   sync.Mutex
	subs map[chan gate.Event]struct{}
}

func newHub() *hub { return &hub{subs: make(map[chan gate.Event]struct{})} }

func (h *hub) publish(evs []gate.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		for _, e := range evs {
			select {
			case ch <- e:
			default:
				delete(h.subs, ch)
				close(ch)
			}
			if _, ok := h.subs[ch]; !ok {
				break
			}
		}
	}
}

func (h *hub) subscribe(buf int) chan gate.Event {
	ch := make(chan gate.Event, buf)
	h.mu.Lock()
	h.subs[ch] = struct{}{}
	h.mu.Unlock()
	return ch
}

func (h *hub) unsubscribe(ch chan gate.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[ch]; ok {
		delete(h.subs, ch)
		close(ch)
	}
}

func (h *hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		delete(h.subs, ch)
		close(ch)
	}
}
