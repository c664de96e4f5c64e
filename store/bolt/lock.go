package bolt

import (
	"errors"
	"fmt"
	"os"

	"github.com/leasegate/leasegate/internal/filelock"
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
	if err := filelock.TryLock(f, exclusive); err != nil {
		f.Close()
		if errors.Is(err, filelock.ErrBusy) {
			return nil, fmt.Errorf("%s: %w (stop its coordinator first)", path, store.ErrLocked)
		}
		return nil, fmt.Errorf("lock ledger %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}
