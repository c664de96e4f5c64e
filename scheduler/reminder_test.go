package scheduler_test

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
)

// TestReminderOnceTwoHoursBeforeExpiry: a 72 h check-out gets its one
// reminder at 70 h exactly; nothing at 71 h, at expiry or later.
func TestReminderOnceTwoHoursBeforeExpiry(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		c := h.calls()
		h.s.RemindAt("L1", h.start.Add(72*time.Hour), c.fn)
		h.advanceTo(70*time.Hour - time.Nanosecond)
		if n := c.count(); n != 0 {
			t.Fatalf("reminder ran %d times before expiry-2h", n)
		}
		h.advanceTo(70 * time.Hour)
		h.advanceTo(71 * time.Hour)
		h.advanceTo(80 * time.Hour)
		if got, want := c.got(), []time.Duration{70 * time.Hour}; !slices.Equal(got, want) {
			t.Fatalf("reminder ran at %v, want %v", got, want)
		}
	})
}

// TestReminderSameExpiryIsNoop: calling RemindAt again with the same expiry
// (pending, or after it fired) never makes a second reminder.
func TestReminderSameExpiryIsNoop(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		c := h.calls()
		exp := h.start.Add(3 * time.Hour)
		h.s.RemindAt("L1", exp, c.fn)
		h.s.RemindAt("L1", exp, c.fn)
		h.advanceTo(time.Hour)
		h.s.RemindAt("L1", exp, c.fn)
		h.advanceTo(90 * time.Minute)
		h.s.RemindAt("L1", exp, c.fn)
		h.s.RemindAt("L1", exp.Add(-time.Minute), c.fn)
		h.advanceTo(4 * time.Hour)
		if got, want := c.got(), []time.Duration{time.Hour}; !slices.Equal(got, want) {
			t.Fatalf("reminder ran at %v, want %v", got, want)
		}
	})
}

// TestReminderRenewalReplaces: a renewal before the reminder moves it to
// the new expiry minus 2 h; the old moment passes silently.
func TestReminderRenewalReplaces(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		old, renewed := h.calls(), h.calls()
		h.s.RemindAt("L1", h.start.Add(10*time.Hour), old.fn)
		h.advanceTo(5 * time.Hour)
		h.s.RemindAt("L1", h.start.Add(20*time.Hour), renewed.fn)
		h.advanceTo(8 * time.Hour)
		h.advanceTo(10 * time.Hour)
		h.advanceTo(30 * time.Hour)
		if n := old.count(); n != 0 {
			t.Fatalf("reminder for the old expiry ran %d times, want 0", n)
		}
		if got, want := renewed.got(), []time.Duration{18 * time.Hour}; !slices.Equal(got, want) {
			t.Fatalf("reminder ran at %v, want %v", got, want)
		}
		if p := h.s.Pending(); p.Reminders != 0 {
			t.Fatalf("Pending().Reminders = %d, want 0", p.Reminders)
		}
	})
}

// TestReminderAfterRenewalOfRemindedLease: a lease renewed after its
// reminder ran gets one reminder for the new expiry.
func TestReminderAfterRenewalOfRemindedLease(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		c := h.calls()
		h.s.RemindAt("L1", h.start.Add(3*time.Hour), c.fn)
		h.advanceTo(2 * time.Hour)
		h.s.RemindAt("L1", h.start.Add(10*time.Hour), c.fn)
		h.advanceTo(12 * time.Hour)
		if got, want := c.got(), []time.Duration{time.Hour, 8 * time.Hour}; !slices.Equal(got, want) {
			t.Fatalf("reminders ran at %v, want %v", got, want)
		}
	})
}

// TestReminderPromptWhenLessThanTwoHoursLeft: a lease created with 1 h
// left is reminded at once (no clock movement needed), and only once.
func TestReminderPromptWhenLessThanTwoHoursLeft(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		c := h.calls()
		h.advanceTo(time.Minute)
		h.s.RemindAt("L1", h.start.Add(61*time.Minute), c.fn)
		h.advanceTo(time.Minute)
		if got, want := c.got(), []time.Duration{time.Minute}; !slices.Equal(got, want) {
			t.Fatalf("reminder ran at %v, want %v (promptly)", got, want)
		}
		h.s.RemindAt("L1", h.start.Add(61*time.Minute), c.fn)
		h.advanceTo(3 * time.Hour)
		if n := c.count(); n != 1 {
			t.Fatalf("reminder ran %d times, want 1", n)
		}
	})
}

// TestReminderNotForExpiredLease: an expiry already past gets no reminder.
func TestReminderNotForExpiredLease(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		c := h.calls()
		h.advanceTo(time.Hour)
		h.s.RemindAt("L1", h.start.Add(time.Hour), c.fn)
		h.s.RemindAt("L2", h.start, c.fn)
		h.advanceTo(5 * time.Hour)
		if n := c.count(); n != 0 {
			t.Fatalf("reminder for an expired lease ran %d times", n)
		}
	})
}

// TestCancelReminder: a released lease's reminder never runs, and its key
// is forgotten so a new lease under it could be reminded.
func TestCancelReminder(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		c := h.calls()
		exp := h.start.Add(3 * time.Hour)
		h.s.RemindAt("L1", exp, c.fn)
		if !h.s.CancelReminder("L1") {
			t.Fatalf("CancelReminder(%q) = false with a reminder pending, want true", "L1")
		}
		h.advanceTo(2 * time.Hour)
		if n := c.count(); n != 0 {
			t.Fatalf("cancelled reminder ran %d times", n)
		}
		h.s.RemindAt("L1", exp, c.fn)
		h.advanceTo(2 * time.Hour)
		if got, want := c.got(), []time.Duration{2 * time.Hour}; !slices.Equal(got, want) {
			t.Fatalf("reminder after CancelReminder ran at %v, want %v", got, want)
		}
	})
}

// TestReminderDroppedWhenLeaseExpiredFirst: a reminder that could not run
// before its lease expired (here: Run started only after the expiry) is
// dropped, not sent late.
func TestReminderDroppedWhenLeaseExpiredFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, clock.New(), time.Sleep)
		c := h.calls()
		h.s.RemindAt("L1", h.start.Add(3*time.Hour), c.fn)
		h.advanceTo(4 * time.Hour)
		h.run()
		h.advanceTo(5 * time.Hour)
		if got := c.got(); len(got) != 0 {
			t.Fatalf("reminder ran at %v, after its lease expired at 3h", got)
		}
		if p := h.s.Pending(); p.Reminders != 0 {
			t.Fatalf("Pending().Reminders = %d, want 0", p.Reminders)
		}
	})
}
