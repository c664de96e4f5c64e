//go:build linux && (amd64 || arm64)

package seccomp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept"
)

// gated indexes every syscall the filter may notify by number.
var gated = func() map[int32]*syscallEntry {
	all := append(notifiedTable(), argTable...)
	m := make(map[int32]*syscallEntry, len(all))
	for i := range all {
		m[int32(all[i].nr)] = &all[i]
	}
	return m
}()

// handle answers one notification on the receiving goroutine. buf is
// scratch space for what is read from the tracee.
//
// When the Decider has to be asked and does not answer at once, another
// receiver takes over and this goroutine asks, answers and then ends:
// the syscall is decided without a hop to another goroutine, and a
// Decide that holds it for minutes holds up no other thread.
func (s *Supervisor) handle(n notif, buf []byte) {
	tid := int(n.PID)
	s.lookups.seen(tid)
	defer s.lookups.answered(tid)
	m, oc, err := s.inspect(n, buf)
	if err == nil && s.instant != nil {
		// No validity check first: an answer to a notification that is
		// no longer valid is refused by the kernel, and DecideNow acts on
		// nothing. (An emulated open checks, in respond.)
		if answered, err := s.instant.DecideNow(m); answered {
			s.traceDecision(m, err)
			s.respond(n, oc, err)
			return
		}
	}
	// Trap: everything inspect read came from /proc/<tid> and the memory
	// of <tid>, which name whatever has that tid now. Only if the
	// notification is still valid was it read from the thread blocked in
	// this syscall; otherwise a Decider could act on another process's
	// path.
	if !errors.Is(err, errNoMutation) && !notifValid(s.listener, n.ID) {
		return // no one left to answer
	}
	if err != nil {
		s.unresolved(n, oc, err)
		return
	}
	s.startReceiver()
	s.respond(n, oc, s.decide(n.ID, m))
}

// send delivers an answer. ENOENT means the thread is gone (or was
// interrupted by a fatal signal): the answer is moot.
func (s *Supervisor) send(n notif, resp notifResp) {
	if err := sendResp(s.listener, resp); err != nil {
		s.log.Debug("answer not delivered", "tid", n.PID, "error", err)
	}
}

// unresolved answers a notification that carries no mutation for the
// Decider: one that changes no named file runs (an open of it is
// emulated); one whose paths cannot be resolved fails.
func (s *Supervisor) unresolved(n notif, oc *openCall, err error) {
	if errors.Is(err, errNoMutation) {
		s.respond(n, oc, nil)
		return
	}
	errno := resolveErrno(err)
	name := fmt.Sprint(n.Data.Nr)
	if e := gated[n.Data.Nr]; e != nil {
		name = e.name
	}
	s.log.Debug("mutation not resolved", "syscall", name, "tid", n.PID, "error", err, "errno", errno)
	if errors.Is(err, unix.EPERM) && !errors.Is(err, errOutsideTree) && !s.unreadSaid.Swap(true) {
		// process_vm_readv refused: the process made itself undumpable
		// (PR_SET_DUMPABLE 0, as ssh-agent and gpg-agent do), whose
		// memory only a tracer with CAP_SYS_PTRACE may read.
		s.log.Warn("a worker process made itself undumpable, so this sidecar (not root) cannot read the paths of its system calls: "+
			"its writes in the workspace fail with EACCES", "tid", n.PID, "comm", readComm(int(n.PID)), "syscall", name)
	}
	if errors.Is(err, unix.ENAMETOOLONG) && !s.longSaid.Swap(true) {
		// Reached step by step (chdir, openat), a file can lie deeper than
		// PATH_MAX from the root, where /proc gives no path for its
		// directory; natively its write would succeed.
		s.log.Warn("a worker process wrote where the full path is over 4096 bytes (PATH_MAX), which the gate cannot name: "+
			"its writes there fail with ENAMETOOLONG", "tid", n.PID, "comm", readComm(int(n.PID)), "syscall", name)
	}
	s.send(n, errnoResp(n.ID, errno))
}

// readComm is the short name of thread tid, or "" when it cannot be read.
func readComm(tid int) string {
	b, _ := os.ReadFile((&tracee{tid: tid}).proc("comm"))
	return strings.TrimSpace(string(b))
}

// inspect reads what the syscall is about and resolves its paths. What it
// returns is only trustworthy once the notification is found still valid
// (see handle).
func (s *Supervisor) inspect(n notif, buf []byte) (intercept.Mutation, *openCall, error) {
	e := gated[n.Data.Nr]
	if e == nil { // the filter only notifies table entries: a bug, fail closed
		s.log.Error("notified of an unknown syscall", "nr", n.Data.Nr)
		return intercept.Mutation{}, nil, fmt.Errorf("unknown syscall %d", n.Data.Nr)
	}
	t := &tracee{tid: int(n.PID), tgids: &s.tgids, lookups: &s.lookups, buf: buf}
	req, err := e.decode(n.Data.Args, t)
	switch {
	case req.op == opChdir:
		// Only this process's working directory moves; if its id cannot
		// be read, take it that anything may.
		pid, _ := t.tgid()
		s.lookups.unsettle(t.tid, pid)
	case movesLookups(req.op):
		s.lookups.unsettle(t.tid, 0)
	case req.op == opUmask:
		s.umaskChanged.Store(true)
	case req.op == opCreds:
		s.credsChanged.Store(true)
	}
	if errors.Is(err, errNoMutation) {
		// Letting it run has no side effect here; if the thread is gone
		// the answer simply fails.
		return intercept.Mutation{}, nil, err
	}
	if err != nil {
		return intercept.Mutation{}, nil, err
	}
	if req.process != nil {
		return intercept.Mutation{}, nil, s.checkProcess(t, *req.process)
	}
	snap, err := t.snapshot(req)
	if err != nil {
		return intercept.Mutation{}, nil, err
	}
	m, err := snap.mutation(e.name, req)
	if err == nil {
		err = s.guardMemory(m)
	}
	return m, callOf(req, snap.firstPath(), m.Paths), err
}

// resolveErrno is the errno for a syscall the supervisor will not let
// run unresolved: where the kernel itself would fail it (a bad pointer, a
// closed fd, an empty or too long path, a symlink loop) the same errno; a
// process outside the worker's tree, EPERM, as ptrace answers; anything
// else — an fd or directory with no path to check (errUnresolvable),
// another process's memory, an unreadable /proc, an unknown syscall —
// EACCES. Never an unresolved allow.
func resolveErrno(err error) unix.Errno {
	if errors.Is(err, errOutsideTree) {
		return unix.EPERM
	}
	var errno unix.Errno
	if errors.As(err, &errno) {
		switch errno {
		case unix.EFAULT, unix.EBADF, unix.ENOENT, unix.ENAMETOOLONG, unix.ELOOP, unix.ENOTDIR, unix.EINVAL:
			return errno
		}
	}
	return unix.EACCES
}

// decide asks the Decider while the notification is watched: if the
// thread is killed, Decide's context is cancelled; if a signal would
// interrupt the syscall, it is cancelled with an *InterruptedError and a
// refusal becomes EINTR (a grant that came first still stands: its write
// happens).
func (s *Supervisor) decide(id uint64, m intercept.Mutation) error {
	ctx, cancel := context.WithCancelCause(s.ctx)
	defer cancel(nil)
	w := s.watchValid(id, m.TID, cancel)
	defer w.stop()
	err := s.cfg.Decider.Decide(ctx, m)
	if _, interrupted := intercept.InterruptedBy(ctx); interrupted && err != nil {
		err = unix.EINTR
	}
	s.traceDecision(m, err)
	return err
}

// traceDecision logs a Decider's answer at trace level.
func (s *Supervisor) traceDecision(m intercept.Mutation, err error) {
	if s.log.IsTrace() {
		s.log.Trace("mutation decided", "op", m.Op, "syscall", m.Syscall, "paths", m.Paths,
			"pid", m.PID, "tid", m.TID, "error", err)
	}
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
