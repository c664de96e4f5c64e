// Package filelock takes advisory whole-file locks without waiting, the
// same way on every platform leasegate builds for: flock(2) on Unix,
// LockFileEx on Windows. It owns nothing else.
package filelock

import "errors"

// ErrBusy is returned by TryLock when another holder has the lock.
var ErrBusy = errors.New("lock held elsewhere")
