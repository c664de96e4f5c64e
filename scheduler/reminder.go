package scheduler

import "time"

// RemindAt arms the one reminder for the lease named key, which expires at
// expiresAt: fn runs once at expiresAt minus RemindBefore, or promptly (at
// Run's next turn) if that moment has passed but expiresAt has not. A lease
// already expired gets no reminder.
//
// At most one reminder fires per key and expiry: a call with the expiry
// already pending or already reminded, or with an earlier one, is a no-op.
// A later expiry (a renewal) replaces the pending reminder, or arms a new
// one if the old one fired. The Scheduler remembers the reminded expiry of
// key until CancelReminder, which callers make when the lease ends.
func (s *Scheduler) RemindAt(key string, expiresAt time.Time, fn func(now time.Time)) {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if last, ok := s.lastExpiry(key); ok && !expiresAt.After(last) {
		return
	}
	s.cancel(s.reminders, key)
	if !now.Before(expiresAt) {
		s.log.Debug("reminder skipped: lease already expired", "key", key, "expires-at", expiresAt)
		return
	}
	at := expiresAt.Add(-s.cfg.RemindBefore)
	if at.Before(now) {
		at = now
	}
	e := &entry{kind: kindReminder, key: key, due: at, fn: fn, expiresAt: expiresAt}
	s.reminders[key] = e
	s.push(e)
	s.log.Debug("reminder armed", "key", key, "remind-at", at, "expires-at", expiresAt)
}

// CancelReminder drops the pending reminder of key and forgets the expiry
// it was reminded of, reporting whether a reminder was pending.
func (s *Scheduler) CancelReminder(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.reminded, key)
	return s.cancel(s.reminders, key)
}

// lastExpiry is the expiry of key's pending reminder, else of its fired
// one. Call with s.mu held.
func (s *Scheduler) lastExpiry(key string) (time.Time, bool) {
	if e := s.reminders[key]; e != nil {
		return e.expiresAt, true
	}
	t, ok := s.reminded[key]
	return t, ok
}

// takeReminder records a due reminder as sent and returns its callback, or
// nil if the lease expired before the reminder could run (the clock jumped
// or the process was suspended): a reminder after expiry would be wrong.
// Call with s.mu held.
func (s *Scheduler) takeReminder(e *entry, now time.Time) func(time.Time) {
	delete(s.reminders, e.key)
	s.reminded[e.key] = e.expiresAt
	if !now.Before(e.expiresAt) {
		s.log.Debug("reminder dropped: lease expired first", "key", e.key, "expires-at", e.expiresAt)
		return nil
	}
	return e.fn
}
