package filelock_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/leasegate/leasegate/internal/filelock"
)

func open(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestTryLock: an exclusive lock excludes every other open file of the
// same file, shared locks share, and Unlock frees it.
func TestTryLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	a, b := open(t, path), open(t, path)
	if err := filelock.TryLock(a, true); err != nil {
		t.Fatalf("TryLock(a, exclusive) = %v, want nil", err)
	}
	if err := filelock.TryLock(b, false); !errors.Is(err, filelock.ErrBusy) {
		t.Errorf("TryLock(b, shared) under an exclusive lock = %v, want ErrBusy", err)
	}
	if err := filelock.Unlock(a); err != nil {
		t.Fatalf("Unlock(a) = %v", err)
	}
	if err := filelock.TryLock(b, false); err != nil {
		t.Errorf("TryLock(b, shared) after Unlock = %v, want nil", err)
	}
	if err := filelock.TryLock(a, false); err != nil {
		t.Errorf("TryLock(a, shared) beside a shared lock = %v, want nil", err)
	}
	if err := filelock.TryLock(open(t, path), true); !errors.Is(err, filelock.ErrBusy) {
		t.Errorf("TryLock(exclusive) beside shared locks = %v, want ErrBusy", err)
	}
}
