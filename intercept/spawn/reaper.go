//go:build linux

package spawn

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept/procfs"
	"github.com/leasegate/leasegate/internal/envname"
)

const (
	// parentDeathSignal is the reaper's parent-death signal: the kernel
	// sends it when the supervisor's process dies, SIGKILL included.
	parentDeathSignal = syscall.SIGTERM
	// killTreeSignal asks the reaper to kill the whole tree now
	// (Supervisor.KillTree).
	killTreeSignal = syscall.SIGUSR1
	// killRound is how often the reaper looks again for processes of the
	// tree while it kills it: each round kills every process found, and
	// the children of those that were forking meanwhile are found in the
	// next one, since they are re-parented to the reaper.
	killRound = 10 * time.Millisecond
)

// reaperSignals are the signals the reaper takes instead of dying of them:
// a Ctrl-C or a hangup meant for the supervisor's job may reach it too,
// and the supervisor decides. Handled
// (not ignored) so that the helper's exec resets them for the worker.
var reaperSignals = []os.Signal{parentDeathSignal, killTreeSignal, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT}

// runReaper is the reaper's work; it never returns. It becomes a child
// subreaper, so every orphan of the worker's tree (a daemon, a setsid'd
// grandchild) is re-parented to it, starts the helper (which execs the
// worker) in a process group of its own, and reaps until no child is
// left. It then exits as the worker did. When the supervisor's process
// dies (its parent-death signal) or the supervisor asks, it kills every
// process below it first.
func runReaper(g Gate, argv []string) {
	os.Unsetenv(envname.SpawnReaper)
	parent := os.Getppid()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, reaperSignals...)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		reaperFail(g, fmt.Errorf("become a child subreaper: %w", err))
	}
	// The reaper runs outside the gate, as the worker's parent: a worker
	// must not trace it nor read its memory.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		reaperFail(g, fmt.Errorf("become undumpable: %w", err))
	}
	if os.Getppid() != parent {
		os.Exit(127) // the supervisor is gone already: start nothing
	}
	worker, err := startHelper(g, argv)
	if err != nil {
		reaperFail(g, err)
	}
	reapUntilEnd(worker, parent, sigs)
}

// reapUntilEnd reaps the worker and every orphan until none is left, then
// exits as the worker did; on the supervisor's death or its request it
// kills every process below the reaper first. It never returns.
func reapUntilEnd(worker, parent int, sigs <-chan os.Signal) {
	exits := make(chan reaped, 16)
	go reapAll(exits)
	locks := map[string]heldLock{} // the git locks of the processes killed
	var status unix.WaitStatus
	killing := false
	tick := time.NewTicker(killRound)
	defer tick.Stop()
	for {
		select {
		case r, ok := <-exits:
			if !ok {
				removeLeftLocks(locks)
				exitAs(status)
			}
			if r.pid == worker {
				status = r.status
			}
		case sig := <-sigs:
			// The parent-death signal counts only once the parent is
			// gone: anyone may send SIGTERM to the supervisor's group.
			if sig == killTreeSignal || (sig == parentDeathSignal && os.Getppid() != parent) {
				killing = true
				killBelow(locks)
			}
		case <-tick.C:
			if killing {
				killBelow(locks)
			}
		}
	}
}

// startHelper starts g's helper with the worker's argv, in a
// process group of its own, with the reaper's streams and the handshake
// socket, and returns its pid (the worker's, after its exec). The helper
// dies with the reaper (parent-death SIGKILL).
func startHelper(g Gate, argv []string) (int, error) {
	sock := os.NewFile(childFD, "gate-child")
	attr := &os.ProcAttr{
		Env:   append(os.Environ(), envname.SpawnHelper+"="+g.Name),
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr, sock},
		Sys:   &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	}
	p, err := os.StartProcess(DefaultSelf, append([]string{g.helperArg0()}, argv...), attr)
	if err != nil {
		return 0, fmt.Errorf("start the helper: %w", err)
	}
	sock.Close()
	pid := p.Pid
	_ = p.Release() // waited for by reapAll, with every orphan
	return pid, nil
}

// reaped is one child the reaper waited for.
type reaped struct {
	pid    int
	status unix.WaitStatus
}

// reapAll waits for every child, the worker and each orphan re-parented
// to the reaper, and closes exits once there is none left.
func reapAll(exits chan<- reaped) {
	defer close(exits)
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, 0, nil)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return // ECHILD: the whole tree has ended
		}
		exits <- reaped{pid: pid, status: ws}
	}
}

// killBelow sends SIGKILL to every process below the reaper, and adds the
// git lock files each held, or made as a git and closed, to locks: they
// are removed once the tree has ended. A process that forks meanwhile leaves a child that is re-parented
// to the reaper once its parent dies, and the next round finds it.
func killBelow(locks map[string]heldLock) {
	for _, pid := range procfs.Descendants(os.Getpid()) {
		for _, l := range locksHeldBy(pid) {
			locks[l.path] = l
		}
		for _, l := range locksMadeBy(pid) {
			if _, held := locks[l.path]; !held {
				locks[l.path] = l
			}
		}
		_ = unix.Kill(pid, unix.SIGKILL)
	}
}

// exitAs ends the reaper the way the worker ended: with its exit code, or
// by the same signal (without a core dump of the reaper).
func exitAs(ws unix.WaitStatus) {
	if !ws.Signaled() {
		os.Exit(ws.ExitStatus())
	}
	sig := ws.Signal()
	_ = unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{})
	signal.Reset(sig)
	_ = unix.Kill(os.Getpid(), sig)
	time.Sleep(time.Second) // the signal is delivered meanwhile
	os.Exit(128 + int(sig)) // a signal that does not end a process
}

// reaperFail reports a failure to start and exits 127, like the helper.
func reaperFail(g Gate, err error) {
	var pl *ProcLimitError
	if errors.As(ProcLimited(err), &pl) {
		// Sent as what it is, so that the supervisor says the limit.
		sendFailure(childFD, kindProcLimit, errors.New(procLimitDetail(pl)))
		err = pl
	} else {
		sendFailure(childFD, kindSetup, err)
	}
	fmt.Fprintf(os.Stderr, "leasegate: %s reaper: %v\n", g.Name, err)
	os.Exit(127)
}
