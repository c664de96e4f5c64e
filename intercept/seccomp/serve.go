//go:build linux && (amd64 || arm64)

package seccomp

import (
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sys/unix"
)

// serve receives notifications until no filtered task is left or the
// supervisor stops, handing each to its own goroutine: a syscall held for
// minutes in one thread must not hold up the other threads' syscalls.
func (s *Supervisor) serve() {
	defer s.finish()
	for {
		ready, hup, err := s.poll()
		switch {
		case err != nil:
			s.log.Error("poll seccomp listener", "error", err)
			return
		case s.ctx.Err() != nil:
			return
		case ready:
			if !s.receive() {
				return
			}
		case hup:
			// Trap: POLLHUP on the listener is the kernel saying that the
			// filter has no users left: every gated process has exited
			// and been reaped, including descendants that outlived the
			// worker.
			s.log.Debug("no gated process left")
			return
		}
	}
}

// poll waits for a notification, the end of all filtered tasks, or a
// wake-up from Close.
func (s *Supervisor) poll() (ready, hup bool, err error) {
	fds := []unix.PollFd{
		{Fd: int32(s.listener), Events: unix.POLLIN},
		{Fd: int32(s.waker.fd), Events: unix.POLLIN},
	}
	for {
		_, err = unix.Poll(fds, -1)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return false, false, err
	}
	ev := fds[0].Revents
	return ev&unix.POLLIN != 0, ev&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0, nil
}

// receive takes one notification and starts its handler. It returns false
// if the listener is broken.
func (s *Supervisor) receive() bool {
	n, err := recvNotif(s.listener)
	switch {
	case errors.Is(err, unix.ENOENT):
		return true // the thread was killed before we got to it
	case err != nil:
		s.log.Error("receive seccomp notification", "error", err)
		return false
	}
	s.wg.Add(1)
	go s.handle(n)
	return true
}

// finish ends serving: it cancels every pending Decide, waits for the
// handlers, and only then closes the listener they answer on.
func (s *Supervisor) finish() {
	s.cancel()
	s.wg.Wait()
	closeAll([]int{s.listener})
	s.waker.close()
	close(s.done)
}

// waker is an eventfd that interrupts the serve loop's poll.
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
