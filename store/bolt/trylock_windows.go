package bolt

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// tryLock takes the lock bbolt takes on f on Windows (LockFileEx on the
// byte range at offset -1, length 1), without waiting; errLockBusy when
// another holder has it.
func tryLock(f *os.File, exclusive bool) error {
	flags := uint32(windows.LOCKFILE_FAIL_IMMEDIATELY)
	if exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	const m1 = ^uint32(0) // -1 as bbolt's range starts there
	ol := windows.Overlapped{Offset: m1, OffsetHigh: m1}
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return errLockBusy
	}
	return err
}
