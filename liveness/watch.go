package liveness

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// ErrNotIdentified is returned (wrapped) by Identify when the owner's
// process is not the peer nor one of its ancestors.
var ErrNotIdentified = errors.New("owner process not identified")

// ProcID is a process as this process's pid namespace sees it: its pid
// and its create time in ms since the epoch (as ProcessStart gives it),
// which together tell it from a later process given the same pid.
type ProcID struct {
	PID       int   `json:"pid"`
	StartTime int64 `json:"start_time"`
}

// withinSlack reports whether two create times are one process's.
func withinSlack(a, b int64) bool {
	d := time.Duration(a-b) * time.Millisecond
	return d.Abs() <= StartSlack
}

// Watched is an owner's process held, where the kernel has them (Linux
// 5.3+), by a pidfd: its exit is known at once, and a later process given
// its pid is never taken for it. Without a pidfd it is judged by its pid
// and create time.
type Watched struct {
	ProcID
	f       *os.File      // the pidfd; nil without pidfd support
	done    chan struct{} // closed when the watch's goroutine ends
	release func()        // gives the pidfd's slot back to its Descriptors; nil without
	why     string        // why it has no pidfd, when not for want of kernel support
}

// Watch holds p by a pidfd, checked to be p (its create time) once open,
// and calls onExit once, from the watch's own goroutine, when p exits;
// onExit must not block (Close waits for it). The goroutine ends then, or
// at Close. Without pidfd support the Watched has
// no pidfd and no goroutine. A p that is already gone gives
// ErrProcessNotFound.
func Watch(p ProcID, onExit func()) (*Watched, error) {
	f, err := openPidfd(p.PID)
	if err != nil {
		return nil, err
	}
	w := &Watched{ProcID: p, f: f, done: make(chan struct{})}
	if f == nil {
		close(w.done)
		return w, nil
	}
	if got, err := ProcessStart(p.PID); err != nil || !withinSlack(got, p.StartTime) {
		f.Close()
		return nil, fmt.Errorf("pid %d exited before its pidfd was open: %w", p.PID, ErrProcessNotFound)
	}
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("pidfd of pid %d: %w", p.PID, err)
	}
	go func() {
		defer close(w.done)
		if rc.Read(pidfdReadable) == nil {
			onExit()
		}
	}()
	return w, nil
}

// HasPidfd reports whether w holds its process by a pidfd.
func (w *Watched) HasPidfd() bool { return w.f != nil }

// Exited reports whether the pidfd says the process has exited (always
// false without one).
func (w *Watched) Exited() bool {
	if w.f == nil {
		return false
	}
	rc, err := w.f.SyscallConn()
	if err != nil {
		return false
	}
	exited := false
	if rc.Control(func(fd uintptr) { exited = pidfdReadable(fd) }) != nil {
		return false
	}
	return exited
}

// Close ends the watch and closes the pidfd; onExit is not called after
// it returns. Close is idempotent and safe on nil.
func (w *Watched) Close() {
	if w == nil || w.f == nil {
		return
	}
	_ = w.f.Close()
	<-w.done
	if w.release != nil {
		w.release()
	}
}

// Unwatched is p without a pidfd: judged by its pid and create time.
func Unwatched(p ProcID) *Watched {
	w := &Watched{ProcID: p, done: make(chan struct{})}
	close(w.done)
	return w
}
