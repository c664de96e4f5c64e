//go:build linux && (amd64 || arm64)

package seccomp

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept"
	"github.com/leasegate/leasegate/intercept/spawn"
)

// Supervisor runs one worker under the gate and answers its mutations.
//
// It serves until every process that carries the filter is gone (the
// worker and any descendant that outlived it), or until Close or the
// context given to Start ends. After it stops serving, the kernel fails
// every gated syscall of surviving processes with ENOSYS: the gate fails
// closed.
type Supervisor struct {
	cfg            Config
	log            hclog.Logger
	*spawn.Process        // the worker: Pid, KillTree, Wait, Exited
	changes               // sticky: a worker process changed its umask or credentials
	umask          uint32 // the supervisor's own umask, which its emulated creates get
	listener       int
	waker          *waker
	tgids          tgidCache
	lookups        lookups
	instant        intercept.InstantDecider // cfg.Decider if it is one, else nil
	unreadSaid     atomic.Bool              // a worker's memory was found unreadable, and that said
	longSaid       atomic.Bool              // a path over PATH_MAX was refused, and that said

	ctx     context.Context // cancelled when serving stops; parent of every Decide ctx
	cancel  context.CancelFunc
	wg      sync.WaitGroup           // receivers after the first (some deciding), the stall watch
	current atomic.Pointer[receiver] // the receiver that polls the listener
	ended   chan struct{}            // closed when a receiver finds serving over
	endOnce sync.Once

	done chan struct{} // closed when serving has stopped and the listener is closed
}

// gate is the seccomp gate's part in starting a worker (intercept/spawn):
// the helper installs the filter on itself and hands over its listener.
var gate = spawn.Gate{Name: "seccomp", Setup: gateSelf, Errors: []error{ErrNoUserNotif, ErrNoWaitKillable}}

// MaybeRunChild turns the process into the gate's helper (or, with
// Config.Reap, its reaper) if it was started as one by Start, and
// otherwise returns at once. Call it first thing in main (and in TestMain
// of tests that use Start), before any goroutines or flag parsing.
//
// As the helper it never returns: it installs the filter on itself, hands
// the listener to the supervisor, waits for its go-ahead, and execs the
// worker; on any failure it prints why on stderr and exits with 127.
func MaybeRunChild() { spawn.MaybeRun(gate) }

// gateSelf installs the filter and hands its listener to the supervisor.
// When it returns nil the supervisor is serving.
func gateSelf(handOver func(fd int) error) error {
	if err := setNoNewPrivs(); err != nil {
		return err
	}
	listener, err := installFilter()
	if err != nil {
		return err
	}
	// The worker must not keep the listener: it could answer its own
	// notifications, and the supervisor would never see the last task go.
	defer unix.Close(listener)
	return handOver(listener)
}

// Start runs cfg.Argv under the gate: it re-executes cfg.Self as the
// helper, receives the filter's listener, starts serving, and lets the
// helper exec the worker. The worker leads its own process group.
//
// Ending ctx stops serving (like Close); it does not kill the worker.
func Start(ctx context.Context, cfg Config) (*Supervisor, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if err := Available(); err != nil {
		return nil, err
	}
	s, err := spawn.Launch(ctx, gate, cfg.Command, func(proc *spawn.Process, listener int) (*Supervisor, error) {
		unix.CloseOnExec(listener)
		return newSupervisor(ctx, cfg, proc, listener)
	})
	if err != nil {
		return nil, err
	}
	s.log.Debug("worker gated", "pid", s.Pid(), "argv", cfg.Argv)
	return s, nil
}

// newSupervisor takes over the listener and starts serving.
func newSupervisor(ctx context.Context, cfg Config, proc *spawn.Process, listener int) (*Supervisor, error) {
	w, err := newWaker()
	if err != nil {
		unix.Close(listener)
		return nil, err
	}
	if err := setSyncWakeUp(listener); err != nil {
		cfg.Logger.Debug("synchronous wake-up unavailable", "error", err)
	}
	s := &Supervisor{
		cfg: cfg, log: cfg.Logger, Process: proc, listener: listener, waker: w,
		done: make(chan struct{}), ended: make(chan struct{}),
	}
	s.instant, _ = cfg.Decider.(intercept.InstantDecider)
	s.umask = ownUmask()
	ctx, cancel := context.WithCancelCause(ctx)
	s.ctx, s.cancel = ctx, func() { cancel(errServingEnded) }
	// Ending the context wakes the serve loop out of poll; the callback
	// returns at once, and the waker ignores it once closed.
	context.AfterFunc(s.ctx, w.wake)
	go s.serve()
	return s, nil
}

// Done is closed when serving has stopped: every gated process is gone,
// or Close was called, or Start's context ended.
//
// "Gone" means reaped: the kernel drops a process from the filter only
// when its parent (for an orphan, init or the nearest subreaper) has
// waited for it, so Done lags an orphan's exit by however long init takes
// to reap it.
func (s *Supervisor) Done() <-chan struct{} { return s.done }

// Close stops serving: pending Decide calls see their context cancelled,
// the listener is closed (from then on gated syscalls of any survivor fail
// with ENOSYS), and Close returns once every receiver and Decide goroutine
// has ended.
// It does not kill or wait for the worker. Close is idempotent.
func (s *Supervisor) Close() error {
	s.cancel()
	<-s.done
	return nil
}
