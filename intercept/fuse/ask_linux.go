//go:build amd64 || arm64

package fuse

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/leasegate/leasegate/intercept"
	"github.com/leasegate/leasegate/intercept/procfs"
)

// asker is what every Node of one mount shares: where the view's files
// are, and who answers their mutations.
type asker struct {
	root     string
	decider  intercept.Decider
	instant  intercept.InstantDecider // decider if it is one, else nil
	killPoll time.Duration
	// umask is the sidecar's, which its creates get on top of the
	// worker's (Node.asAsked gives back what it took).
	umask uint32
	// ids is how owners and groups are shown to the kernel.
	ids ids
	// keepEntry and keepAttr are how long the kernel keeps a name and its
	// attributes under a watched directory (Config.WatchedTimeout, or
	// EntryTimeout and AttrTimeout when longer); watcher keeps them
	// coherent, nil when nothing is kept.
	keepEntry, keepAttr time.Duration
	watcher             *watcher
	ctx                 context.Context // cancelled by Close; parent of every Decide ctx

	mu     sync.Mutex
	closed bool           // Close was called: refuse every mutation
	wg     sync.WaitGroup // Decide calls in progress
}

// ask builds the Mutation of a request and asks whether it may proceed:
// DecideNow first, then Decide. It returns the errno to fail the request
// with, 0 to do it.
func (a *asker) ask(ctx context.Context, op intercept.Op, request string, paths ...string) syscall.Errno {
	m := intercept.Mutation{Op: op, Syscall: "fuse-" + request, Paths: paths}
	if caller, ok := fuse.FromContext(ctx); ok {
		m.TID = int(caller.Pid)
		m.PID = m.TID
		// Most callers are their process's main thread: one syscall says
		// so, where /proc costs a file read.
		if !procfs.InProcess(m.TID, m.TID) {
			if pid, err := procfs.Tgid(m.TID); err == nil {
				m.PID = pid
			}
		}
	}
	if !a.enter() {
		return syscall.EACCES
	}
	defer a.wg.Done()
	if a.instant != nil {
		if answered, err := a.instant.DecideNow(m); answered {
			return errnoOf(err)
		}
	}
	dctx, cancel := context.WithCancelCause(a.ctx)
	defer cancel(nil)
	stop := a.watchInterrupt(ctx, m.TID, cancel)
	defer stop()
	return errnoOf(a.decider.Decide(dctx, m))
}

// enter counts one more ask in progress, unless the asker is closed.
func (a *asker) enter() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return false
	}
	a.wg.Add(1)
	return true
}

// close refuses every later ask and waits for those in progress, whose
// Decide contexts cancel has ended.
func (a *asker) close(cancel context.CancelFunc) {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	cancel()
	a.wg.Wait()
}

// errnoOf maps a Decider's answer to the request's errno: nil does it, an
// Errno fails it with that errno, anything else with EACCES.
func errnoOf(err error) syscall.Errno {
	if err == nil {
		return 0
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return syscall.EACCES
}

// errCallerKilled is the cause of a Decide's cancelled context when the
// caller's thread is being killed: it will never see the answer.
var errCallerKilled = errors.New("the waiting thread ended (a fatal signal)")

// watchInterrupt cancels a Decide when a signal ends the caller's wait,
// as the seccomp gate does: SIGKILL pending (the thread is being killed:
// a fatal signal is one by then), or a signal that would interrupt a
// blocking syscall natively (procfs.ThreadSignals.Interrupting: SIGINT
// from Ctrl-C, caught or not, SIGTERM, ...), whose request then fails with
// EINTR and whose handler runs. Signals that are ignored, stop or
// continue by default (Go's SIGURG, a shell's SIGCHLD and SIGWINCH) leave
// the wait held: their programs restart the call, and the wait would
// start over. The kernel interrupts a held request (ctx ends) on the
// caller's first signal, whatever it is, and only once; so from then on
// the thread's pending signals are read every killPoll. stop ends the
// watch.
func (a *asker) watchInterrupt(ctx context.Context, tid int, cancel context.CancelCauseFunc) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		tick := time.NewTicker(a.killPoll)
		defer tick.Stop()
		for {
			if cause := interruption(tid); cause != nil {
				cancel(cause)
				return
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// interruption is why thread tid's wait ends now, or nil: errCallerKilled
// when it is being killed (or gone), an InterruptedError when a signal
// would interrupt its syscall natively.
func interruption(tid int) error {
	ts, err := procfs.ReadThreadSignals(tid)
	if err != nil || ts.Pending&procfs.Bit(syscall.SIGKILL) != 0 {
		return errCallerKilled
	}
	if sig := ts.Interrupting(); sig != 0 {
		return &intercept.InterruptedError{Signal: sig}
	}
	return nil
}

// under is the host path of name in the directory at rel (both relative to
// the root).
func (a *asker) under(rel, name string) string {
	return filepath.Join(a.root, rel, name)
}
