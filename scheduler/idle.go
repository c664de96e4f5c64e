package scheduler

import "time"

// StopIdle opens the stop-idle window of owner, who stopped at now: fn
// runs once, at now+after (after is the owner's own idle window), unless
// Activity or CancelIdle comes first. A pending window is replaced, so the
// release comes after the latest stop, with the latest window and fn. It
// returns when fn will run.
func (s *Scheduler) StopIdle(owner string, now time.Time, after time.Duration, fn func(now time.Time)) (releaseAt time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancel(s.idles, owner)
	e := &entry{kind: kindIdle, key: owner, due: now.Add(after), fn: fn}
	s.idles[owner] = e
	s.push(e)
	s.log.Debug("stop-idle armed", "owner", owner, "release-at", e.due)
	return e.due
}

// Activity records that owner mutated (or otherwise showed activity): a
// pending stop-idle release is cancelled. It reports whether one was
// pending. Only a new StopIdle opens another window.
func (s *Scheduler) Activity(owner string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancel(s.idles, owner)
}

// CancelIdle drops the pending stop-idle release of owner (it exited, or
// was released another way), reporting whether one was pending.
func (s *Scheduler) CancelIdle(owner string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancel(s.idles, owner)
}
