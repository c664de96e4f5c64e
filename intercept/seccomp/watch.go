//go:build linux && (amd64 || arm64)

package seccomp

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/leasegate/leasegate/intercept"
	"github.com/leasegate/leasegate/intercept/procfs"
)

// validityWatch checks, every ValidityPoll while a Decider runs, that its
// notification is still valid, and cancels the Decider's context when it
// is not. It also looks for a signal that would interrupt the syscall
// natively (see procfs.ThreadSignals.Interrupting) and cancels the context with
// an *InterruptedError as its cause: the wait ends and the syscall fails
// with EINTR.
//
// The kernel tells the listener nothing when a waiting thread is killed
// (and with WAIT_KILLABLE_RECV only a fatal signal can end the wait), so
// polling SECCOMP_IOCTL_NOTIF_ID_VALID is the only way to notice. A timer
// rather than a goroutine with a ticker: most Deciders answer long before
// the first check, and then the watch costs no goroutine at all.
type validityWatch struct {
	mu      sync.Mutex
	timer   *time.Timer
	stopped bool
}

// errThreadGone is the cause of a Decider's cancelled context when its
// notification is no longer valid.
var errThreadGone = errors.New("the waiting thread ended (a fatal signal)")

// errServingEnded is the cause of every pending Decider's cancelled
// context when serving stops: the worker and every gated process ended, or
// the Supervisor was closed.
var errServingEnded = errors.New("the gated worker ended")

// watchValid starts watching notification id of thread tid.
func (s *Supervisor) watchValid(id uint64, tid int, cancel context.CancelCauseFunc) *validityWatch {
	w := &validityWatch{}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.timer = time.AfterFunc(s.cfg.ValidityPoll, func() { s.checkValid(w, id, tid, cancel) })
	return w
}

// checkValid runs on the timer's goroutine, which ends when it returns.
// It holds w.mu so that once stop has returned it never touches the
// listener (which may be closed by then).
func (s *Supervisor) checkValid(w *validityWatch, id uint64, tid int, cancel context.CancelCauseFunc) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	if !notifValid(s.listener, id) {
		cancel(errThreadGone)
		return
	}
	// Read after the validity check: a thread id reused since would be
	// another thread's signals, but then the notification is gone and the
	// next check cancels anyway.
	if ts, err := procfs.ReadThreadSignals(tid); err == nil {
		if sig := ts.Interrupting(); sig != 0 {
			cancel(&intercept.InterruptedError{Signal: sig})
			return
		}
	}
	w.timer.Reset(s.cfg.ValidityPoll)
}

// stop ends the watch; no check runs after it returns.
func (w *validityWatch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	w.timer.Stop()
}
