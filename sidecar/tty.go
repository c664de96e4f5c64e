//go:build !windows

package sidecar

import (
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// foreground gives the terminal to the worker's process group, as a shell
// does for a job: the worker runs in its own group (so a blocker halt can
// stop all of it), and an interactive agent must still read the terminal
// and receive Ctrl-C. It returns a func that takes the terminal back, and
// whether the worker got it. Off a terminal it does nothing, and so it
// does when run is not the terminal's foreground job (started with & from
// an interactive shell): the terminal is the shell's then, and a worker
// that reads it is stopped as any background job is.
func foreground(pgid int) (restore func(), given bool) {
	own, err := unix.IoctlGetInt(0, unix.TIOCGPGRP)
	if err != nil || own != unix.Getpgrp() {
		return func() {}, false
	}
	signal.Ignore(syscall.SIGTTOU)
	if err := unix.IoctlSetPointerInt(0, unix.TIOCSPGRP, pgid); err != nil {
		return func() {}, false
	}
	return func() { _ = unix.IoctlSetPointerInt(0, unix.TIOCSPGRP, own) }, true
}
