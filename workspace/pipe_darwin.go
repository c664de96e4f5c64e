package workspace

import (
	"os"
	"syscall"
)

// blockingPipe is os.Pipe without O_NONBLOCK, so that os.NewFile leaves it
// out of the runtime poller. Darwin has no pipe2: close-on-exec is set under
// the fork lock so that no child started meanwhile inherits the descriptors.
func blockingPipe() (r, w *os.File, err error) {
	var fds [2]int
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err := syscall.Pipe(fds[:]); err != nil {
		return nil, nil, err
	}
	syscall.CloseOnExec(fds[0])
	syscall.CloseOnExec(fds[1])
	return os.NewFile(uintptr(fds[0]), "|0"), os.NewFile(uintptr(fds[1]), "|1"), nil
}
