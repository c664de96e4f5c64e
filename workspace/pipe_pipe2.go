//go:build linux || freebsd || netbsd || openbsd || dragonfly

package workspace

import (
	"os"
	"syscall"
)

// blockingPipe is os.Pipe without O_NONBLOCK, so that os.NewFile leaves it
// out of the runtime poller.
func blockingPipe() (r, w *os.File, err error) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), "|0"), os.NewFile(uintptr(fds[1]), "|1"), nil
}
