//go:build !windows

package bolt

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// tryLock takes the flock(2) lock bbolt takes on f, without waiting;
// errLockBusy when another holder has it.
func tryLock(f *os.File, exclusive bool) error {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	err := unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return errLockBusy
	}
	return err
}
