package scheduler_test

import (
	"slices"
	"testing"
	"time"
)

// TestWindowsPerCall: each retry and stop-idle runs at the caller's now
// plus the window that call passed, so two waiters and two holders with
// different windows, armed at once, fire at their own times.
func TestWindowsPerCall(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		now := h.clock.Now()
		fast, slow, fastIdle, slowIdle := h.calls(), h.calls(), h.calls(), h.calls()
		if at, _ := h.s.ScheduleRetry("bob", now, time.Second, fast.fn); !at.Equal(now.Add(time.Second)) {
			t.Fatalf("ScheduleRetry(bob, 1s) = %s, want %s", at, now.Add(time.Second))
		}
		h.s.ScheduleRetry("carol", now, 3*time.Minute, slow.fn)
		if at := h.s.StopIdle("alice", now, 2*time.Second, fastIdle.fn); !at.Equal(now.Add(2 * time.Second)) {
			t.Fatalf("StopIdle(alice, 2s) = %s, want %s", at, now.Add(2*time.Second))
		}
		h.s.StopIdle("dave", now, 30*time.Second, slowIdle.fn)
		h.advanceTo(5 * time.Minute)
		for _, tc := range []struct {
			name string
			c    *calls
			want time.Duration
		}{
			{"bob's retry (1s)", fast, time.Second},
			{"carol's retry (3m)", slow, 3 * time.Minute},
			{"alice's stop-idle (2s)", fastIdle, 2 * time.Second},
			{"dave's stop-idle (30s)", slowIdle, 30 * time.Second},
		} {
			if got := tc.c.got(); !slices.Equal(got, []time.Duration{tc.want}) {
				t.Errorf("%s ran at %v, want [%s]", tc.name, got, tc.want)
			}
		}
	})
}

// TestNowFromCaller: the due time counts from the now the caller passes,
// not from the scheduler's own later reading, so the interval a caller
// records between its decision and the retry is exactly the window.
func TestNowFromCaller(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		h.advanceTo(10 * time.Second)
		decided := h.start.Add(4 * time.Second) // a decision read earlier
		c := h.calls()
		if at, _ := h.s.ScheduleRetry("m1", decided, 7*time.Second, c.fn); !at.Equal(decided.Add(7 * time.Second)) {
			t.Fatalf("ScheduleRetry(now-6s, 7s) = %s, want %s", at, decided.Add(7*time.Second))
		}
		if at := h.s.StopIdle("alice", decided, 9*time.Second, c.fn); !at.Equal(decided.Add(9 * time.Second)) {
			t.Fatalf("StopIdle(now-6s, 9s) = %s, want %s", at, decided.Add(9*time.Second))
		}
		h.advanceTo(time.Minute)
		if got, want := c.got(), []time.Duration{11 * time.Second, 13 * time.Second}; !slices.Equal(got, want) {
			t.Fatalf("ran at %v, want %v", got, want)
		}
	})
}
