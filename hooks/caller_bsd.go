//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package hooks

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// endWithParent watches the parent, pid, with a kqueue (EVFILT_PROC,
// NOTE_EXIT) and sends this process SIGTERM when it ends. The goroutine
// that waits ends with the parent or the process. The signal is sent
// only on the parent's exit event, or when this process has another
// parent already, so a watch that fails never ends a hook whose shell
// lives.
func endWithParent(pid int) {
	terminate := func() { _ = unix.Kill(os.Getpid(), unix.SIGTERM) }
	orphaned := func() {
		if os.Getppid() != pid {
			terminate()
		}
	}
	kq, err := unix.Kqueue()
	if err != nil {
		return
	}
	change := make([]unix.Kevent_t, 1)
	unix.SetKevent(&change[0], pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	change[0].Fflags = unix.NOTE_EXIT
	if _, err := unix.Kevent(kq, change, nil, nil); err != nil {
		_ = unix.Close(kq)
		orphaned() // ESRCH: it ended before the watch
		return
	}
	go func() {
		defer unix.Close(kq)
		got := make([]unix.Kevent_t, 1)
		for {
			n, err := unix.Kevent(kq, nil, got, nil)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil {
				return
			}
			if n > 0 && int(got[0].Ident) == pid && got[0].Fflags&unix.NOTE_EXIT != 0 {
				terminate()
				return
			}
		}
	}()
	orphaned()
}
