//go:build linux && (amd64 || arm64)

package seccomp

import (
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sys/unix"
)

// serve runs the first receiver and the stall watch, and ends serving once
// no filtered task is left or the supervisor stops.
func (s *Supervisor) serve() {
	defer s.finish()
	s.wg.Add(1)
	go s.watchStalls()
	first := &receiver{}
	s.current.Store(first)
	s.receive(first)
	// The first receiver may have been replaced (see watchStalls): the
	// current one says when serving is over.
	<-s.ended
}

// receive serves notifications on the calling goroutine for as long as r
// is the current receiver, or until serving ends.
//
// Each notification is examined and answered right here: the notifying
// thread and this goroutine hand the CPU back and forth without a hop to
// another goroutine, which on a 2-core VM cost about 50 µs per syscall,
// more than all the rest. When a Decide may wait, a new receiver takes
// over instead (see handle), so that a syscall held for minutes in one
// thread does not hold up the other threads.
func (s *Supervisor) receive(r *receiver) {
	for s.current.Load() == r {
		if !s.next(r) {
			s.end()
			return
		}
	}
}

// next waits for one notification and handles it. It returns false when
// serving is over.
func (s *Supervisor) next(r *receiver) bool {
	ready, hup, err := s.poll(r)
	switch {
	case err != nil:
		s.log.Error("poll seccomp listener", "error", err)
		return false
	case s.ctx.Err() != nil:
		return false
	case ready:
		return s.take(r)
	case hup:
		// Trap: POLLHUP on the listener is the kernel saying that the
		// filter has no users left: every gated process has exited and
		// been reaped, including descendants that outlived the worker.
		s.log.Debug("no gated process left")
		return false
	}
	return true
}

// poll waits for a notification, the end of all filtered tasks, or a
// wake-up from Close.
func (s *Supervisor) poll(r *receiver) (ready, hup bool, err error) {
	r.fds = [2]unix.PollFd{
		{Fd: int32(s.listener), Events: unix.POLLIN},
		{Fd: int32(s.waker.fd), Events: unix.POLLIN},
	}
	for {
		_, err = unix.Poll(r.fds[:], -1)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return false, false, err
	}
	ready, hup = listenerEvents(r.fds[0].Revents)
	return ready, hup, nil
}

// listenerEvents reads the listener's poll events: ready when a
// notification waits, hup when no filtered task is left (POLLHUP) or the
// listener is not open (POLLNVAL).
//
// Trap: POLLERR alone is no end. The kernel answers a poll of the
// listener with POLLERR when a signal arrives while the poll waits for
// the listener's lock (the Go runtime signals its threads to preempt
// them), and the next poll answers truly. Taking it as the end stopped
// serving a live worker, and every gated syscall it made from then on
// failed with ENOSYS.
func listenerEvents(ev int16) (ready, hup bool) {
	return ev&unix.POLLIN != 0, ev&(unix.POLLHUP|unix.POLLNVAL) != 0
}

// take receives one notification and handles it. It returns false if the
// listener is broken.
func (s *Supervisor) take(r *receiver) bool {
	n, err := recvNotif(s.listener)
	switch {
	case errors.Is(err, unix.ENOENT):
		return true // the thread was killed before we got to it
	case err != nil:
		s.log.Error("receive seccomp notification", "error", err)
		return false
	}
	r.steps.Add(1)
	defer r.steps.Add(1)
	s.handle(n, r.buf[:])
	return true
}

// end marks serving as over and cancels every pending Decide, which a
// retired receiver may still be waiting for; the first call wins.
func (s *Supervisor) end() {
	s.endOnce.Do(func() {
		s.cancel()
		close(s.ended)
	})
}

// finish ends serving: it cancels every pending Decide, waits for the
// receivers and handlers, and only then closes the listener they answer
// on.
func (s *Supervisor) finish() {
	s.cancel()
	s.wg.Wait()
	unix.Close(s.listener)
	s.waker.close()
	close(s.done)
}

// waker is an eventfd that interrupts the receiver's poll.
type waker struct {
	mu     sync.Mutex
	fd     int
	closed bool
}

func newWaker() (*waker, error) {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("eventfd: %w", err)
	}
	return &waker{fd: fd}, nil
}

// wake makes the eventfd readable; after close it does nothing, so that a
// late wake-up never writes to a reused fd number.
func (w *waker) wake() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		var one = [8]byte{1}
		_, _ = unix.Write(w.fd, one[:])
	}
}

func (w *waker) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.closed = true
		unix.Close(w.fd)
	}
}
