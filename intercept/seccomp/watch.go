//go:build linux && (amd64 || arm64)

package seccomp

import (
	"context"
	"sync"
	"time"
)

// validityWatch checks, every ValidityPoll while a Decider runs, that its
// notification is still valid, and cancels the Decider's context when it
// is not.
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

// watchValid starts watching notification id.
func (s *Supervisor) watchValid(id uint64, cancel context.CancelFunc) *validityWatch {
	w := &validityWatch{}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.timer = time.AfterFunc(s.cfg.ValidityPoll, func() { s.checkValid(w, id, cancel) })
	return w
}

// checkValid runs on the timer's goroutine, which ends when it returns.
// It holds w.mu so that once stop has returned it never touches the
// listener (which may be closed by then).
func (s *Supervisor) checkValid(w *validityWatch, id uint64, cancel context.CancelFunc) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.stopped:
	case !notifValid(s.listener, id):
		cancel()
	default:
		w.timer.Reset(s.cfg.ValidityPoll)
	}
}

// stop ends the watch; no check runs after it returns.
func (w *validityWatch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	w.timer.Stop()
}
