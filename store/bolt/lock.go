package bolt

import (
	"errors"
	"fmt"
	"os"

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
	if err := tryLock(f, exclusive); err != nil {
		f.Close()
		if errors.Is(err, errLockBusy) {
			return nil, fmt.Errorf("%s: %w (stop its coordinator first)", path, store.ErrLocked)
		}
		return nil, fmt.Errorf("lock ledger %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}

// errLockBusy is tryLock's answer when another holder has the lock.
var errLockBusy = errors.New("lock held elsewhere")
