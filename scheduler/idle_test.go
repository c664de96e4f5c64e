package scheduler_test

import (
	"slices"
	"testing"
	"time"
)

// TestStopIdleFiresAtExactlyIdleAfter: a stopped owner with no activity is
// released at +30 s exactly, once.
func TestStopIdleFiresAtExactlyIdleAfter(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		c := h.calls()
		at := h.idle("alice", c.fn)
		if want := h.start.Add(30 * time.Second); !at.Equal(want) {
			t.Fatalf("StopIdle(%q) = %s, want %s", "alice", at, want)
		}
		h.advanceTo(30*time.Second - time.Nanosecond)
		if n := c.count(); n != 0 {
			t.Fatalf("stop-idle ran %d times before 30 s", n)
		}
		h.advanceTo(30 * time.Second)
		h.advanceTo(time.Hour)
		if got, want := c.got(), []time.Duration{30 * time.Second}; !slices.Equal(got, want) {
			t.Fatalf("stop-idle ran at %v, want %v", got, want)
		}
	})
}

// TestActivityCancelsStopIdle: activity at +29 s cancels the release;
// nothing runs at +30 s or ever after.
func TestActivityCancelsStopIdle(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		c := h.calls()
		h.idle("alice", c.fn)
		h.advanceTo(29 * time.Second)
		if !h.s.Activity("alice") {
			t.Fatalf("Activity(%q) = false with a stop-idle pending, want true", "alice")
		}
		if h.s.Activity("alice") {
			t.Fatalf("second Activity(%q) = true, want false", "alice")
		}
		h.advanceTo(30 * time.Second)
		h.advanceTo(24 * time.Hour)
		if n := c.count(); n != 0 {
			t.Fatalf("stop-idle ran %d times after activity cancelled it", n)
		}
	})
}

// TestReStopAfterActivity: a stop after activity opens a fresh 30 s window
// from the new stop: nothing at the old deadline, one release at the new.
func TestReStopAfterActivity(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		c := h.calls()
		h.idle("alice", c.fn)
		h.advanceTo(29 * time.Second)
		h.s.Activity("alice")
		h.advanceTo(45 * time.Second)
		if at, want := h.idle("alice", c.fn), h.start.Add(75*time.Second); !at.Equal(want) {
			t.Fatalf("StopIdle(%q) = %s, want %s", "alice", at, want)
		}
		h.advanceTo(75*time.Second - time.Nanosecond)
		if n := c.count(); n != 0 {
			t.Fatalf("stop-idle ran %d times before the new window closed", n)
		}
		h.advanceTo(time.Hour)
		if got, want := c.got(), []time.Duration{75 * time.Second}; !slices.Equal(got, want) {
			t.Fatalf("stop-idle ran at %v, want %v", got, want)
		}
	})
}

// TestStopIdleRearmsFromLatestStop: a second stop while the window is open
// moves the release to 30 s after it, with the latest callback, once.
func TestStopIdleRearmsFromLatestStop(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		old, latest := h.calls(), h.calls()
		h.idle("alice", old.fn)
		h.advanceTo(10 * time.Second)
		h.idle("alice", latest.fn)
		h.advanceTo(time.Hour)
		if old.count() != 0 {
			t.Fatalf("replaced stop-idle callback ran %d times, want 0", old.count())
		}
		if got, want := latest.got(), []time.Duration{40 * time.Second}; !slices.Equal(got, want) {
			t.Fatalf("stop-idle ran at %v, want %v", got, want)
		}
	})
}

// TestCancelIdle: an owner that went away has its window dropped.
func TestCancelIdle(t *testing.T) {
	runEach(t, func(t *testing.T, h *harness) {
		c := h.calls()
		h.idle("alice", c.fn)
		h.idle("bob", c.fn)
		if !h.s.CancelIdle("alice") {
			t.Fatalf("CancelIdle(%q) = false with a stop-idle pending, want true", "alice")
		}
		h.advanceTo(time.Hour)
		if got, want := c.got(), []time.Duration{30 * time.Second}; !slices.Equal(got, want) {
			t.Fatalf("stop-idle ran at %v, want %v (bob only)", got, want)
		}
	})
}
