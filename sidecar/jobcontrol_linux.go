package sidecar

import (
	"context"
	"os"
	"os/signal"
	"time"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept/procfs"
)

// jobPoll is how often a worker that has the terminal is checked for a
// suspend (Ctrl-Z): the shell's prompt comes back at most that long after
// the keystroke. Each check reads /proc/PID/stat once.
const jobPoll = 100 * time.Millisecond

// followSuspend passes a suspend of the worker on to the shell that
// started run, as a shell's job would be suspended. Ctrl-Z stops the
// terminal's foreground process group, which is the worker's (foreground):
// run itself keeps running, so the shell would wait on a job that never
// stops, its prompt gone and `fg` out of reach. So when the worker stops
// while it has the terminal (and not by a blocker's halt), run takes the
// terminal back and suspends its own job; continued (`fg`, or `bg`), it
// continues the worker, and gives it the terminal again if the shell gave
// the terminal to run. It ends with ctx.
func (s *Sidecar) followSuspend(ctx context.Context) {
	t := time.NewTicker(jobPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if s.suspendedByUser() {
			suspendJob(ctx, s.sup.Pid())
		}
	}
}

// suspendedByUser reports whether the worker is stopped while it has the
// terminal, by something else than a halt: under haltMu, so that a halt
// or a resume in progress is not taken for one.
func (s *Sidecar) suspendedByUser() bool {
	s.haltMu.Lock()
	defer s.haltMu.Unlock()
	return s.halts == 0 && !s.aborted && foregroundIs(s.sup.Pid()) && procfs.Stopped(s.sup.Pid())
}

// foregroundIs reports whether pgid is the terminal's foreground process
// group.
func foregroundIs(pgid int) bool {
	fg, err := unix.IoctlGetInt(0, unix.TIOCGPGRP)
	return err == nil && fg == pgid
}

// suspendJob suspends run's own process group, as the terminal's Ctrl-Z
// would have, after giving it the terminal back; it returns once the group
// is continued (or ctx ends), and continues the worker's group, giving it
// the terminal if the shell brought run to the foreground. A group that no
// shell watches (an orphaned one, which the kernel would not stop with
// SIGTSTP) is not suspended.
func suspendJob(ctx context.Context, worker int) {
	own := unix.Getpgrp()
	if own == worker || orphaned(own) {
		return
	}
	// The stop is not taken by the thread that sends it before kill
	// returns (another thread may take the signal): wait for the SIGCONT
	// that ends it.
	cont := make(chan os.Signal, 1)
	signal.Notify(cont, unix.SIGCONT)
	defer signal.Stop(cont)
	_ = unix.IoctlSetPointerInt(0, unix.TIOCSPGRP, own)
	_ = unix.Kill(-own, unix.SIGTSTP)
	select {
	case <-cont:
	case <-ctx.Done():
	}
	if foregroundIs(own) {
		_ = unix.IoctlSetPointerInt(0, unix.TIOCSPGRP, worker)
	}
	_ = unix.Kill(-worker, unix.SIGCONT)
}

// orphaned reports whether run's process group has no shell to continue
// it: its parent is in the same group, or in another session.
func orphaned(own int) bool {
	ppid := unix.Getppid()
	pg, err := unix.Getpgid(ppid)
	if err != nil || pg == own {
		return true
	}
	sid, err := unix.Getsid(ppid)
	mine, err2 := unix.Getsid(0)
	return err != nil || err2 != nil || sid != mine
}
