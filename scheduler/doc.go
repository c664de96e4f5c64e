// Package scheduler owns all of leasegate's timing: the one retry of a
// denied mutation, stop-idle releases, the minute expiry sweep and the one
// reminder before a check-out lease expires, all read from an injected
// clock (github.com/benbjohnson/clock).
//
// It must not know what a lease, an owner, a request or a store is: callers
// name each timer with a key and pass the callback to run when it comes
// due. What a retry, a release or a reminder does is the caller's business;
// when it happens, and that it happens once, is this package's.
//
// Pending timers live in one min-heap ordered by due time, driven by a
// single clock timer armed for the earliest entry. Run's goroutine fires
// callbacks one at a time, in due order (ties in the order they were
// scheduled), and never while holding the scheduler's lock, so a callback
// may schedule or cancel timers of this Scheduler. Because they run on that
// one goroutine, a slow callback delays the ones after it: callbacks should
// hand long work to their own goroutines.
//
// A timer never fires early: a callback runs only once the clock's Now() has
// reached its due time, and it receives that Now(). Durations are added to
// a Now() reading, so inside a process retry and stop-idle deadlines follow
// the monotonic clock; reminders are computed from a lease's wall-clock
// expiry and follow the wall clock.
package scheduler
