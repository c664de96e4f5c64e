package integration_test

import (
	"context"
	"sync"
	"testing"
	"time"
)

// turnHold keeps a mock model from answering a request that brings a new
// tool result until the test lets it go: the agent's session stays open,
// its process a live owner, with the tool's effect done. A nil hold
// answers at once.
type turnHold struct {
	reached chan struct{} // closed when the held request arrives
	release chan struct{} // closed by let
	arrive  sync.Once
	leave   sync.Once
}

// newTurnHold is a hold that lets go when the test ends, before the mock's
// server closes (which waits for the requests it serves): make it after
// the mock.
func newTurnHold(t testing.TB) *turnHold {
	h := &turnHold{reached: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(h.let)
	return h
}

// wait holds an answer until let, or until the agent gives up the request.
func (h *turnHold) wait(ctx context.Context) {
	if h == nil {
		return
	}
	h.arrive.Do(func() { close(h.reached) })
	select {
	case <-h.release:
	case <-ctx.Done():
	}
}

// let lets the held answer, and every later one, go.
func (h *turnHold) let() {
	h.leave.Do(func() { close(h.release) })
}

// reachedWithin waits until the agent's request is held.
func (h *turnHold) reachedWithin(t testing.TB, within time.Duration, what string, log func() string) {
	t.Helper()
	select {
	case <-h.reached:
	case <-time.After(within):
		t.Fatalf("%s: the model was not asked again within %s (the tool's result did not come back)\n%s", what, within, log())
	}
}
