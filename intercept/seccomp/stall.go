//go:build linux && (amd64 || arm64)

package seccomp

import (
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// receiver is a goroutine that receives, examines and (mostly) answers
// notifications. One receiver is current at a time; one that is stuck in
// a notification is replaced and ends once that notification is done.
type receiver struct {
	// steps counts the receiver's steps: it is odd while a notification
	// is being handled.
	steps atomic.Uint64
	fds   [2]unix.PollFd
	// buf holds the strings read from a tracee's memory and /proc while
	// one notification is examined; they are copied out of it.
	buf [unix.PathMax]byte
}

// watchStalls starts another receiver whenever the current one has been
// handling the same notification for a whole StallAfter interval (see
// DefaultStallAfter). It ends when serving stops.
func (s *Supervisor) watchStalls() {
	defer s.wg.Done()
	t := time.NewTicker(s.cfg.StallAfter)
	defer t.Stop()
	var last *receiver
	var lastSteps uint64
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		r := s.current.Load()
		steps := r.steps.Load()
		if r == last && steps == lastSteps && steps%2 == 1 {
			s.log.Debug("a notification holds up the receiver; starting another", "after", s.cfg.StallAfter)
			r, steps = s.startReceiver(), 0
		}
		last, lastSteps = r, steps
	}
}

// startReceiver makes a new receiver current and runs it on its own
// goroutine; the one it replaces ends after its notification.
func (s *Supervisor) startReceiver() *receiver {
	r := &receiver{}
	s.current.Store(r)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.receive(r)
	}()
	return r
}
