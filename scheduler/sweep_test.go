package scheduler_test

import (
	"slices"
	"testing"
	"time"
)

// TestSweepEveryMinute: the expiry sweep runs on the minute from Run's
// start: none before the first minute, five after five minutes.
func TestSweepEveryMinute(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		c := h.calls()
		h.s.OnSweep(c.fn)
		h.advanceTo(time.Minute - time.Nanosecond)
		if n := c.count(); n != 0 {
			t.Fatalf("sweep ran %d times before the first minute", n)
		}
		h.advanceTo(5 * time.Minute)
		want := []time.Duration{time.Minute, 2 * time.Minute, 3 * time.Minute, 4 * time.Minute, 5 * time.Minute}
		if got := c.got(); !slices.Equal(got, want) {
			t.Fatalf("sweeps ran at %v, want %v", got, want)
		}
	})
}

// TestSweepStepwise: sweeps stay on the minute grid when the clock moves in
// uneven steps and other timers fire in between.
func TestSweepStepwise(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		c, other := h.calls(), h.calls()
		h.s.OnSweep(c.fn)
		for step := 7 * time.Second; h.now() < 5*time.Minute; {
			h.idle("alice", other.fn)
			h.advanceTo(min(h.now()+step, 5*time.Minute))
		}
		if n := c.count(); n != 5 {
			t.Fatalf("sweep ran %d times in 5 min, want 5 (at %v)", n, c.got())
		}
		for _, at := range c.got() {
			if at%time.Minute != 0 {
				t.Fatalf("sweep ran at %s, off the minute grid", at)
			}
		}
	})
}

// TestOnSweepReplaces: a later OnSweep replaces the callback; nil stops it.
func TestOnSweepReplaces(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		a, b := h.calls(), h.calls()
		h.s.OnSweep(a.fn)
		h.advanceTo(time.Minute)
		h.s.OnSweep(b.fn)
		h.advanceTo(2 * time.Minute)
		h.s.OnSweep(nil)
		h.advanceTo(10 * time.Minute)
		if a.count() != 1 || b.count() != 1 {
			t.Fatalf("sweep callbacks ran %d and %d times, want 1 and 1", a.count(), b.count())
		}
	})
}
