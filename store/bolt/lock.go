package bolt

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/store"
)

// lockFile takes bbolt's lock on the ledger file at path without waiting:
// shared to read it, exclusive to replace it. A coordinator holds it
// exclusively while it runs, so either fails with store.ErrLocked then.
// A missing file needs no lock.
func lockFile(path string, exclusive bool) (unlock func(), err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return func() {}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("lock ledger: %w", err)
	}
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	if err := unix.Flock(int(f.Fd()), how|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s: %w (stop its coordinator first)", path, store.ErrLocked)
		}
		return nil, fmt.Errorf("lock ledger %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}
