package scheduler_test

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestRetryFiresAtExactlyRetryAfter: the one retry runs at +180 s to the
// nanosecond, not a nanosecond (or a millisecond) before, and receives that
// moment.
func TestRetryFiresAtExactlyRetryAfter(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		c := h.calls()
		retryAt, first := h.retry("m1", c.fn)
		if want := h.start.Add(180 * time.Second); !retryAt.Equal(want) || !first {
			t.Fatalf("ScheduleRetry(%q) = %s, %v, want %s, true", "m1", retryAt, first, want)
		}
		h.advanceTo(180*time.Second - time.Millisecond)
		h.advanceTo(180*time.Second - time.Nanosecond)
		if got := c.got(); len(got) != 0 {
			t.Fatalf("retry ran at %v, before 180 s", got)
		}
		h.advanceTo(180 * time.Second)
		if got, want := c.got(), []time.Duration{180 * time.Second}; !slices.Equal(got, want) {
			t.Fatalf("retry ran at %v, want %v", got, want)
		}
	})
}

// TestSecondScheduleRetryWhilePending: a second denial of the same mutation
// while its retry is pending arms nothing and reports the pending retryAt;
// exactly one callback runs, and it is the first one.
func TestSecondScheduleRetryWhilePending(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		first, second := h.calls(), h.calls()
		want, _ := h.retry("m1", first.fn)
		h.advanceTo(100 * time.Second)
		got, isFirst := h.retry("m1", second.fn)
		if !got.Equal(want) || isFirst {
			t.Fatalf("second ScheduleRetry(%q) = %s, %v, want %s, false", "m1", got, isFirst, want)
		}
		if p := h.s.Pending(); p.Retries != 1 {
			t.Fatalf("Pending().Retries = %d after a second ScheduleRetry, want 1", p.Retries)
		}
		h.advanceTo(280 * time.Second)
		if first.count() != 1 || second.count() != 0 {
			t.Fatalf("callbacks ran %d and %d times, want 1 and 0", first.count(), second.count())
		}
		if got := first.got(); got[0] != 180*time.Second {
			t.Fatalf("retry ran at %s, want 180s (from the first denial)", got[0])
		}
	})
}

// TestRetryFiresOnceAsTimeMovesOn: after the retry ran, hours more on the
// clock never run it again.
func TestRetryFiresOnceAsTimeMovesOn(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		c := h.calls()
		h.retry("m1", c.fn)
		h.advanceTo(180 * time.Second)
		for hour := 1; hour <= 5; hour++ {
			h.advanceTo(time.Duration(hour) * time.Hour)
		}
		if got, want := c.got(), []time.Duration{180 * time.Second}; !slices.Equal(got, want) {
			t.Fatalf("retry ran at %v, want %v", got, want)
		}
		if p := h.s.Pending(); p.Retries != 0 {
			t.Fatalf("Pending().Retries = %d after the retry fired, want 0", p.Retries)
		}
	})
}

// TestRetryNotEarlyUnderOtherEvents: a second-by-second storm of other
// timers, activity, repeated denials and cancellations of other keys never
// makes the retry run before 180 s, and it runs once at 180 s.
func TestRetryNotEarlyUnderOtherEvents(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		c, others := h.calls(), h.calls()
		h.retry("m1", c.fn)
		for sec := 1; sec < 180; sec++ {
			h.advanceTo(time.Duration(sec) * time.Second)
			owner := fmt.Sprintf("owner-%d", sec%3)
			h.s.Activity(owner)
			h.idle(owner, others.fn)
			h.retry("m1", others.fn)
			h.retry(fmt.Sprintf("other-%d", sec), others.fn)
			h.s.CancelRetry(fmt.Sprintf("other-%d", sec-1))
			h.s.RemindAt(fmt.Sprintf("lease-%d", sec), h.clock.Now().Add(time.Hour), others.fn)
			if n := c.count(); n != 0 {
				t.Fatalf("retry ran %d times at %s, before 180 s", n, h.now())
			}
		}
		// A prompt reminder makes Run take a turn just before the deadline.
		for _, at := range []time.Duration{180*time.Second - time.Millisecond, 180*time.Second - time.Nanosecond} {
			h.advanceTo(at)
			h.s.RemindAt("prompt-"+at.String(), h.clock.Now().Add(time.Hour), others.fn)
			h.advanceTo(at)
			if n := c.count(); n != 0 {
				t.Fatalf("retry ran %d times at %s, before 180 s", n, h.now())
			}
		}
		h.advanceTo(180 * time.Second)
		if got, want := c.got(), []time.Duration{180 * time.Second}; !slices.Equal(got, want) {
			t.Fatalf("retry ran at %v, want %v", got, want)
		}
		if others.count() == 0 {
			t.Fatalf("no other timer fired: the storm did not exercise the scheduler")
		}
	})
}

// TestCancelRetry: a cancelled retry never runs, and cancelling reports
// whether one was pending.
func TestCancelRetry(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		c := h.calls()
		h.retry("m1", c.fn)
		h.advanceTo(179 * time.Second)
		if !h.s.CancelRetry("m1") {
			t.Fatalf("CancelRetry(%q) = false with a retry pending, want true", "m1")
		}
		if h.s.CancelRetry("m1") {
			t.Fatalf("second CancelRetry(%q) = true, want false", "m1")
		}
		h.advanceTo(time.Hour)
		if n := c.count(); n != 0 {
			t.Fatalf("cancelled retry ran %d times", n)
		}
	})
}

// TestRetryKeyFreeAfterFiring: once the retry of a key ran, a new denial of
// that key schedules a new retry, 180 s after the new denial.
func TestRetryKeyFreeAfterFiring(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		c := h.calls()
		h.retry("m1", c.fn)
		h.advanceTo(200 * time.Second)
		retryAt, first := h.retry("m1", c.fn)
		if want := h.start.Add(380 * time.Second); !retryAt.Equal(want) || !first {
			t.Fatalf("ScheduleRetry(%q) after firing = %s, %v, want %s, true", "m1", retryAt, first, want)
		}
		h.advanceTo(time.Hour)
		if got, want := c.got(), []time.Duration{180 * time.Second, 380 * time.Second}; !slices.Equal(got, want) {
			t.Fatalf("retries ran at %v, want %v", got, want)
		}
	})
}

// TestShortenedRetryAfter: a demo's shorter retry window is honoured exactly.
func TestShortenedRetryAfter(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		c := h.calls()
		h.s.ScheduleRetry("m1", h.clock.Now(), 3*time.Second, c.fn)
		h.advanceTo(3*time.Second - time.Nanosecond)
		h.advanceTo(time.Minute)
		if got, want := c.got(), []time.Duration{3 * time.Second}; !slices.Equal(got, want) {
			t.Fatalf("retry ran at %v, want %v", got, want)
		}
	})
}
