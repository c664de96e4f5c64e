package scheduler_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"go.uber.org/goleak"

	"github.com/leasegate/leasegate/scheduler"
)

// armAll schedules one of every kind of timer, each recording into c.
func armAll(h *harness, c *calls) {
	h.retry("m1", c.fn)
	h.idle("alice", c.fn)
	h.s.RemindAt("L1", h.start.Add(3*time.Hour), c.fn)
	h.s.OnSweep(c.fn)
}

// TestCloseStopsEverything: after Close no callback of any kind runs, Run
// has returned, and no goroutine is left behind.
func TestCloseStopsEverything(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		c := h.calls()
		armAll(h, c)
		h.advanceTo(10 * time.Second)
		h.s.Close()
		if !h.returned() {
			t.Fatalf("Run still running after Close")
		}
		h.advanceTo(24 * time.Hour)
		if got := c.got(); len(got) != 0 {
			t.Fatalf("callbacks ran at %v after Close", got)
		}
		h.s.Close()
		if err := h.s.Run(context.Background()); !errors.Is(err, scheduler.ErrClosed) {
			t.Fatalf("Run() after Close = %v, want %v", err, scheduler.ErrClosed)
		}
	})
	goleak.VerifyNone(t)
}

// TestContextEndStopsEverything: ending Run's context is a Close.
func TestContextEndStopsEverything(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		c := h.calls()
		armAll(h, c)
		h.cancel()
		if !h.returned() {
			t.Fatalf("Run still running after its context ended")
		}
		h.advanceTo(24 * time.Hour)
		if got := c.got(); len(got) != 0 {
			t.Fatalf("callbacks ran at %v after the context ended", got)
		}
		if err := h.s.Run(context.Background()); !errors.Is(err, scheduler.ErrClosed) {
			t.Fatalf("Run() after its context ended = %v, want %v", err, scheduler.ErrClosed)
		}
	})
	goleak.VerifyNone(t)
}

// TestCloseFromCallback: a callback may Close the Scheduler without
// deadlocking; a timer due at the same moment after it does not run.
func TestCloseFromCallback(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		later := h.calls()
		h.retry("a", func(time.Time) { h.s.Close() })
		h.retry("b", later.fn)
		h.advanceTo(time.Hour)
		if !h.returned() {
			t.Fatalf("Run still running after a callback called Close")
		}
		if n := later.count(); n != 0 {
			t.Fatalf("retry due with the closing one ran %d times after Close", n)
		}
	})
}

// TestCallbackReentersScheduler: a callback may schedule, cancel and read
// the Scheduler; a retry scheduled from its own callback is a new one.
func TestCallbackReentersScheduler(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		c, idle := h.calls(), h.calls()
		h.retry("m1", func(now time.Time) {
			c.fn(now)
			if c.count() > 1 {
				return
			}
			at, first := h.retry("m1", c.fn)
			if want := now.Add(180 * time.Second); !at.Equal(want) || !first {
				t.Errorf("ScheduleRetry(%q) from its own callback = %s, %v, want %s, true", "m1", at, first, want)
			}
			h.idle("alice", idle.fn)
			h.s.CancelReminder("L1")
			h.s.Pending()
		})
		h.advanceTo(time.Hour)
		if got, want := c.got(), []time.Duration{180 * time.Second, 360 * time.Second}; !slices.Equal(got, want) {
			t.Fatalf("retries ran at %v, want %v", got, want)
		}
		if got, want := idle.got(), []time.Duration{210 * time.Second}; !slices.Equal(got, want) {
			t.Fatalf("stop-idle armed from a callback ran at %v, want %v", got, want)
		}
	})
}

// TestSecondRunRefused: a Scheduler runs once at a time.
func TestSecondRunRefused(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		if err := h.s.Run(context.Background()); !errors.Is(err, scheduler.ErrRunning) {
			t.Fatalf("second Run() = %v, want %v", err, scheduler.ErrRunning)
		}
	})
}

// TestScheduledBeforeRun: timers armed before Run do not fire without it,
// and fire (late, never early) once it starts; a sweep comes a full
// SweepEvery after Run starts.
func TestScheduledBeforeRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, clock.New(), time.Sleep)
		retry, sweep := h.calls(), h.calls()
		h.retry("m1", retry.fn)
		h.s.OnSweep(sweep.fn)
		h.advanceTo(200 * time.Second)
		if n := retry.count(); n != 0 {
			t.Fatalf("retry ran %d times without Run", n)
		}
		h.run()
		h.advanceTo(260 * time.Second)
		if got, want := retry.got(), []time.Duration{200 * time.Second}; !slices.Equal(got, want) {
			t.Fatalf("retry ran at %v, want %v (when Run started)", got, want)
		}
		if got, want := sweep.got(), []time.Duration{260 * time.Second}; !slices.Equal(got, want) {
			t.Fatalf("sweep ran at %v, want %v", got, want)
		}
	})
}

// TestPending counts what is waiting and drops what fired or was
// cancelled.
func TestPending(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		c := h.calls()
		h.retry("m1", c.fn)
		h.retry("m2", c.fn)
		h.idle("alice", c.fn)
		h.s.RemindAt("L1", h.start.Add(3*time.Hour), c.fn)
		h.s.RemindAt("L2", h.start.Add(4*time.Hour), c.fn)
		h.s.RemindAt("L3", h.start.Add(5*time.Hour), c.fn)
		if got, want := h.s.Pending(), (scheduler.Stats{Retries: 2, Idles: 1, Reminders: 3}); got != want {
			t.Fatalf("Pending() = %+v, want %+v", got, want)
		}
		h.s.CancelRetry("m2")
		h.s.CancelReminder("L3")
		h.advanceTo(time.Hour)
		if got, want := h.s.Pending(), (scheduler.Stats{Reminders: 1}); got != want {
			t.Fatalf("Pending() after an hour = %+v, want %+v", got, want)
		}
	})
}

// TestRealClockOutsideBubble: with the real clock and real time, a retry
// fires no earlier than its window and Close leaves no goroutine behind.
func TestRealClockOutsideBubble(t *testing.T) {
	s := MustNew(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	fired := make(chan time.Time, 1)
	retryAt, _ := s.ScheduleRetry("m1", time.Now(), 20*time.Millisecond, func(now time.Time) { fired <- now })
	if now := <-fired; now.Before(retryAt) {
		t.Fatalf("retry ran at %s, before its retryAt %s", now, retryAt)
	}
	s.Close()
	if err := <-done; err != nil {
		t.Fatalf("Run() = %v, want nil", err)
	}
	goleak.VerifyNone(t)
}

// TestCloseDuringCallback: Close from another goroutine while a callback
// runs returns without waiting for it (the callback may be waiting for the
// closer), and nothing after that callback runs.
func TestCloseDuringCallback(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		release, later := make(chan struct{}), h.calls()
		h.retry("a", func(time.Time) { <-release })
		h.retry("b", later.fn)
		h.advanceTo(180 * time.Second)
		h.s.Close()
		close(release)
		if !h.returned() {
			t.Fatalf("Run still running after Close and the end of its callback")
		}
		if n := later.count(); n != 0 {
			t.Fatalf("retry due after the running one ran %d times after Close", n)
		}
	})
}
