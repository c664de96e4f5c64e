package scheduler

import "time"

// ScheduleRetry arms the one retry of the denied mutation named key: at
// now+after, fn runs once. now is the caller's reading of the denial and
// after the waiter's own retry window, so the interval the caller records
// is exactly the window. While that retry is pending, further
// calls for key arm nothing and ignore their fn: they return the pending
// retryAt and first=false. This is what makes a retry happen exactly once
// per denied mutation, never early and never twice. Once the retry has
// fired (or was cancelled) key is free, and a later denial of key may
// schedule a new one. retryAt is the moment the caller reports in its
// contention heartbeat.
func (s *Scheduler) ScheduleRetry(key string, now time.Time, after time.Duration, fn func(now time.Time)) (retryAt time.Time, first bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.retries[key]; e != nil {
		return e.due, false
	}
	e := &entry{kind: kindRetry, key: key, due: now.Add(after), fn: fn}
	s.retries[key] = e
	s.push(e)
	s.log.Debug("retry armed", "key", key, "retry-at", e.due)
	return e.due, true
}

// CancelRetry drops the pending retry of key, reporting whether there was
// one; its fn will not run.
func (s *Scheduler) CancelRetry(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancel(s.retries, key)
}
