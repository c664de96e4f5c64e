package scheduler

import (
	"context"
	"time"

	"github.com/benbjohnson/clock"
)

// Run fires timers and runs the sweep every SweepEvery (the first one
// SweepEvery after Run starts) until ctx ends or Close is called, then
// returns nil. Callbacks run on Run's goroutine, one at a time. Run may be
// called once; afterwards the Scheduler is closed and nothing fires again.
func (s *Scheduler) Run(ctx context.Context) error {
	if err := s.start(); err != nil {
		return err
	}
	defer s.finish()
	var t *clock.Timer
	defer func() { stopTimer(t) }()
	for {
		s.fireDue(ctx)
		stopTimer(t)
		var due bool
		if t, due = s.armTimer(ctx); due {
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-s.stop:
			return nil
		case <-timerC(t):
		case <-s.wake:
		}
	}
}

func (s *Scheduler) start() error {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return ErrClosed
	case s.running:
		return ErrRunning
	}
	s.running = true
	s.armSweep(now)
	s.log.Debug("scheduler running", "sweep-every", s.cfg.SweepEvery)
	return nil
}

func (s *Scheduler) finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeLocked()
	s.running = false
	close(s.done)
	s.log.Debug("scheduler stopped")
}

func (s *Scheduler) closeLocked() {
	if !s.closed {
		s.closed = true
		close(s.stop)
	}
}

// fireDue runs every entry that is due, one at a time, reading the clock
// before each so that an entry made due by a slow callback runs too.
func (s *Scheduler) fireDue(ctx context.Context) {
	for {
		fn, now, ok := s.takeDue(ctx)
		if !ok {
			return
		}
		if fn != nil {
			fn(now)
		}
		s.mu.Lock()
		s.inCallback = false
		s.mu.Unlock()
	}
}

// takeDue removes the earliest entry if it is due and the Scheduler is
// still open, and returns the callback to run for it (nil: nothing to run).
func (s *Scheduler) takeDue(ctx context.Context) (func(time.Time), time.Time, bool) {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || ctx.Err() != nil {
		return nil, now, false
	}
	e := s.q.popDue(now)
	if e == nil {
		return nil, now, false
	}
	s.inCallback = true
	return s.take(e, now), now, true
}

// take unindexes a due entry and returns its callback. Call with s.mu held.
func (s *Scheduler) take(e *entry, now time.Time) func(time.Time) {
	s.log.Debug("timer fired", "kind", e.kind, "key", e.key, "due", e.due, "late-by", now.Sub(e.due))
	switch e.kind {
	case kindRetry:
		delete(s.retries, e.key)
	case kindIdle:
		delete(s.idles, e.key)
	case kindReminder:
		return s.takeReminder(e, now)
	case kindSweep:
		s.rearmSweep(e, now)
		return s.sweepFn
	}
	return e.fn
}

// armTimer starts a clock timer for the earliest entry. It returns nil
// when nothing is pending or the Scheduler is stopping, and nil, true when
// the earliest entry is already due (it became due after fireDue looked):
// Run then fires it without a timer, so no zero-length timer is created. The
// delay is measured from the Now() it is computed from, so the timer never
// fires before the entry is due.
func (s *Scheduler) armTimer(ctx context.Context) (t *clock.Timer, due bool) {
	now := s.clock.Now()
	s.mu.Lock()
	e := s.q.next()
	stopping := s.closed || ctx.Err() != nil
	s.mu.Unlock()
	switch {
	case e == nil || stopping:
		return nil, false
	case !now.Before(e.due):
		return nil, true
	}
	return s.clock.Timer(e.due.Sub(now)), false
}

func stopTimer(t *clock.Timer) {
	if t != nil {
		t.Stop()
	}
}

func timerC(t *clock.Timer) <-chan time.Time {
	if t == nil {
		return nil
	}
	return t.C
}
