//go:build linux && (amd64 || arm64)

package seccomp

import (
	"context"
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// errGone means the notification stopped being valid while it was read:
// the thread was killed and there is no one to answer.
var errGone = errors.New("notification no longer valid")

// gated indexes the native syscall table by number.
var gated = func() map[int32]*syscallEntry {
	m := make(map[int32]*syscallEntry, len(syscallTable))
	for i := range syscallTable {
		m[int32(syscallTable[i].nr)] = &syscallTable[i]
	}
	return m
}()

// handle answers one notification. Its goroutine ends when the answer is
// sent, when the notification turns out to be invalid, or when Close
// cancels the Decider.
func (s *Supervisor) handle(n notif) {
	defer s.wg.Done()
	resp, ok := s.answer(n)
	if !ok {
		return
	}
	if err := sendResp(s.listener, resp); err != nil {
		s.log.Debug("answer not delivered", "tid", n.PID, "error", err)
	}
}

// answer works out the answer to a notification; ok is false when there is
// no one left to answer.
func (s *Supervisor) answer(n notif) (resp notifResp, ok bool) {
	e := gated[n.Data.Nr]
	if e == nil { // the filter only notifies table entries: a bug, fail closed
		s.log.Error("notified of an unknown syscall", "nr", n.Data.Nr)
		return errnoResp(n.ID, unix.EPERM), true
	}
	m, err := s.inspect(n, e)
	switch {
	case errors.Is(err, errGone):
		return notifResp{}, false
	case errors.Is(err, errNoMutation):
		return continueResp(n.ID), true
	case err != nil:
		errno := resolveErrno(err)
		s.log.Debug("mutation not resolved", "syscall", e.name, "tid", n.PID, "error", err, "errno", errno)
		return errnoResp(n.ID, errno), true
	}
	return s.decide(n.ID, m), true
}

// inspect reads what the syscall is about and resolves its paths.
func (s *Supervisor) inspect(n notif, e *syscallEntry) (Mutation, error) {
	t := &tracee{tid: int(n.PID), tgids: &s.tgids}
	req, err := e.decode(n.Data.Args, t)
	if errors.Is(err, errNoMutation) {
		// Letting it run has no side effect here; if the thread is gone
		// the answer simply fails.
		return Mutation{}, err
	}
	var snap snapshot
	if err == nil {
		snap, err = t.snapshot(req)
	}
	// Trap: everything above came from /proc/<tid> and the memory of
	// <tid>, which name whatever has that tid now. Only if the
	// notification is still valid was it read from the thread blocked in
	// this syscall; otherwise a Decider could act on another process's
	// path.
	if !notifValid(s.listener, n.ID) {
		return Mutation{}, errGone
	}
	if err != nil {
		return Mutation{}, err
	}
	return snap.mutation(e.name, req)
}

// resolveErrno is the errno for a mutation whose paths cannot be resolved:
// where the kernel itself would fail the syscall (a bad pointer, a closed
// fd, an empty or too long path, a symlink loop) the same errno; anything
// else (an unreadable /proc) EPERM. Never an unresolved allow.
func resolveErrno(err error) unix.Errno {
	var errno unix.Errno
	if errors.As(err, &errno) {
		switch errno {
		case unix.EFAULT, unix.EBADF, unix.ENOENT, unix.ENAMETOOLONG, unix.ELOOP, unix.ENOTDIR:
			return errno
		}
	}
	return unix.EPERM
}

// decide asks the Decider while the notification is watched: if the
// thread is killed, Decide's context is cancelled.
func (s *Supervisor) decide(id uint64, m Mutation) notifResp {
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	w := s.watchValid(id, cancel)
	defer w.stop()
	err := s.cfg.Decider.Decide(ctx, m)
	if s.log.IsTrace() {
		s.log.Trace("mutation decided", "op", m.Op, "syscall", m.Syscall, "paths", m.Paths,
			"pid", m.PID, "tid", m.TID, "error", err)
	}
	return responseFor(id, err)
}

// responseFor maps a Decider's answer: nil lets the syscall run, an errno
// fails it with that errno, anything else with EACCES.
func responseFor(id uint64, err error) notifResp {
	if err == nil {
		return continueResp(id)
	}
	var errno syscall.Errno
	if errors.As(err, &errno) && errno != 0 {
		return errnoResp(id, errno)
	}
	return errnoResp(id, unix.EACCES)
}
