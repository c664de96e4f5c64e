package scheduler

import "time"

// OnSweep sets the expiry sweep callback, run every SweepEvery while Run
// runs; a later call replaces it, and nil removes it.
func (s *Scheduler) OnSweep(fn func(now time.Time)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepFn = fn
}

// armSweep queues the first sweep, SweepEvery after now. Call with s.mu
// held.
func (s *Scheduler) armSweep(now time.Time) {
	s.push(&entry{kind: kindSweep, key: "sweep", due: now.Add(s.cfg.SweepEvery)})
}

// rearmSweep queues the sweep after e on the same grid (Run's start plus a
// multiple of SweepEvery), so sweeps do not drift by callback latency.
// Periods missed while the process was suspended are skipped, not run in a
// burst. Call with s.mu held.
func (s *Scheduler) rearmSweep(e *entry, now time.Time) {
	next := e.due.Add(s.cfg.SweepEvery)
	if !next.After(now) {
		missed := now.Sub(e.due) / s.cfg.SweepEvery
		next = e.due.Add((missed + 1) * s.cfg.SweepEvery)
	}
	e.due = next
	s.push(e)
}
