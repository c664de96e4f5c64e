package filelock

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockRange is the byte range locked: one byte at offset -1, beyond any
// data, as bbolt locks its file on Windows (a locked range cannot be read
// through another handle, and no file reaches that offset).
var lockRange = windows.Overlapped{Offset: ^uint32(0), OffsetHigh: ^uint32(0)}

// TryLock takes f's lock with LockFileEx, shared or exclusive, without
// waiting: ErrBusy when another holder has it. The lock ends with Unlock
// or when f is closed. It is the lock bbolt takes on its file.
func TryLock(f *os.File, exclusive bool) error {
	flags := uint32(windows.LOCKFILE_FAIL_IMMEDIATELY)
	if exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	ol := lockRange
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return ErrBusy
	}
	return err
}

// Unlock drops the lock TryLock took on f.
func Unlock(f *os.File) error {
	ol := lockRange
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}
