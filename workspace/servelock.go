package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/leasegate/leasegate/internal/filelock"
)

// ServingError means another coordinator holds the workspace's serve lock.
type ServingError struct {
	PID int // as that coordinator wrote it; 0 when it had not yet
}

func (e *ServingError) Error() string {
	if e.PID == 0 {
		return "another coordinator serves this workspace"
	}
	return fmt.Sprintf("another coordinator (pid %d) serves this workspace", e.PID)
}

// ServeLockPath is the file a coordinator holds locked while it serves; it
// names the coordinator's pid.
func (w *Workspace) ServeLockPath() string { return filepath.Join(w.StateDir, "serve.lock") }

// ServeLock is a coordinator's hold on its workspace.
type ServeLock struct{ f *os.File }

// LockServe takes the workspace's serve lock for this process and writes
// its pid into it, or returns a *ServingError at once when another
// coordinator holds it. The lock ends with Close or with the process.
func (w *Workspace) LockServe() (*ServeLock, error) {
	path := w.ServeLockPath()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|oNoFollow, 0o600)
	if err != nil {
		return nil, fmt.Errorf("serve lock: %w", err)
	}
	if err := filelock.TryLock(f, true); err != nil {
		defer f.Close()
		if errors.Is(err, filelock.ErrBusy) {
			return nil, &ServingError{PID: readPID(f)}
		}
		return nil, fmt.Errorf("serve lock %s: %w", path, err)
	}
	pid := []byte(strconv.Itoa(os.Getpid()) + "\n")
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, fmt.Errorf("serve lock %s: %w", path, err)
	}
	if _, err := f.WriteAt(pid, 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("serve lock: write pid: %w", err)
	}
	return &ServeLock{f: f}, nil
}

// Close releases the lock.
func (l *ServeLock) Close() error { return l.f.Close() }

func readPID(f *os.File) int {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	return pid
}

// Serving reports whether a coordinator holds the workspace's serve lock
// now, and the pid it wrote there (0 if none yet). It changes nothing:
// the lock file is only opened for reading, and a shared lock taken to
// test it is dropped at once.
func (w *Workspace) Serving() (pid int, serving bool) {
	f, err := os.OpenFile(w.ServeLockPath(), os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	if err := filelock.TryLock(f, false); err != nil {
		return readPID(f), errors.Is(err, filelock.ErrBusy)
	}
	_ = filelock.Unlock(f)
	return 0, false
}
