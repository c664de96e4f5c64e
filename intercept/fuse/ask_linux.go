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
	stop := a.watchKill(ctx, m.TID, cancel)
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

// watchKill cancels a Decide when the caller's thread is being killed.
// The kernel interrupts a held request (ctx ends) on the caller's first
// signal, whatever it is; only a SIGKILL ends the wait. Any other signal
// leaves it held: answering EINTR would make bash and Go retry the call,
// and the wait would start over. From the interrupt on, the thread's
// pending signals are read every killPoll, since a SIGKILL that follows
// brings no second interrupt. stop ends the watch.
func (a *asker) watchKill(ctx context.Context, tid int, cancel context.CancelCauseFunc) (stop func()) {
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
			if procfs.KillPending(tid) {
				cancel(&intercept.InterruptedError{Signal: syscall.SIGKILL})
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

// under is the host path of name in the directory at rel (both relative to
// the root).
func (a *asker) under(rel, name string) string {
	return filepath.Join(a.root, rel, name)
}
