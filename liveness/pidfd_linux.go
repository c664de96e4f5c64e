package liveness

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// openPidfd opens a non-blocking pidfd for pid, or returns (nil, nil)
// where the kernel has none (before Linux 5.3).
func openPidfd(pid int) (*os.File, error) {
	fd, err := unix.PidfdOpen(pid, unix.O_NONBLOCK)
	switch {
	case errors.Is(err, unix.ENOSYS):
		return nil, nil
	case errors.Is(err, unix.ESRCH):
		return nil, fmt.Errorf("pid %d: %w", pid, ErrProcessNotFound)
	case err != nil:
		return nil, fmt.Errorf("pidfd_open pid %d: %w", pid, err)
	}
	// Non-blocking, so os.NewFile hands it to the runtime's poller: a
	// watch waits for the exit without holding a thread.
	return os.NewFile(uintptr(fd), fmt.Sprintf("pidfd:%d", pid)), nil
}

// pidfdReadable reports whether a pidfd says its process has exited.
func pidfdReadable(fd uintptr) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0 && fds[0].Revents&unix.POLLIN != 0
}
