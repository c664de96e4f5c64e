//go:build linux && (amd64 || arm64)

package seccomp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/hashicorp/go-hclog"
)

// Supervisor runs one worker under the gate and answers its mutations.
//
// It serves until every process that carries the filter is gone (the
// worker and any descendant that outlived it), or until Close or the
// context given to Start ends. After it stops serving, the kernel fails
// every gated syscall of surviving processes with ENOSYS: the gate fails
// closed.
type Supervisor struct {
	cfg      Config
	log      hclog.Logger
	cmd      *exec.Cmd    // the helper (the worker after its exec), or the reaper
	waited   <-chan error // cmd.Wait's error, from the thread that started it
	changes               // sticky: a worker process changed its umask or credentials
	umask    uint32       // the supervisor's own umask, which its emulated creates get
	worker   int          // the worker's pid, as the kernel gave it in the handshake
	listener int
	waker    *waker
	tgids    tgidCache
	lookups  lookups
	instant  InstantDecider // cfg.Decider if it is one, else nil

	ctx     context.Context // cancelled when serving stops; parent of every Decide ctx
	cancel  context.CancelFunc
	wg      sync.WaitGroup           // receivers after the first (some deciding), the stall watch
	current atomic.Pointer[receiver] // the receiver that polls the listener
	ended   chan struct{}            // closed when a receiver finds serving over
	endOnce sync.Once

	done    chan struct{} // closed when serving has stopped and the listener is closed
	exited  chan struct{} // closed when the worker has been reaped
	state   *os.ProcessState
	waitErr error
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
	parent, child, err := socketPair()
	if err != nil {
		return nil, err
	}
	defer parent.Close()
	cmd := helperCommand(cfg, child)
	waited, err := startLocked(cmd)
	child.Close()
	if err != nil {
		return nil, fmt.Errorf("start helper %s: %w", cfg.Self, err)
	}
	s, err := handshake(ctx, cfg, cmd, parent, waited)
	if err != nil {
		abandon(cmd, s, waited)
		return nil, err
	}
	return s, nil
}

// startLocked starts cmd from a thread that stays locked to its goroutine
// until cmd is reaped; the channel gets cmd.Wait's error. The kernel sends
// a child's Pdeathsig when the thread that forked it ends, not the
// process, and a Go thread ends when a goroutine locked to it exits
// (internal/gitrun does that on purpose): a worker forked from an ordinary
// thread could be killed the moment another goroutine threw that thread
// away.
func startLocked(cmd *exec.Cmd) (<-chan error, error) {
	started, waited := make(chan error, 1), make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := cmd.Start()
		started <- err
		if err == nil {
			waited <- cmd.Wait()
		}
	}()
	return waited, <-started
}

// abandon kills and reaps a helper whose start failed, through the
// supervisor if one was already serving it.
func abandon(cmd *exec.Cmd, s *Supervisor, waited <-chan error) {
	_ = cmd.Process.Kill()
	if s == nil {
		<-waited
		return
	}
	s.Close()
	s.Wait()
}

// helperCommand builds the helper's command: Self with the worker's argv,
// environment and streams, the marker variable, and the socket on fd 3.
func helperCommand(cfg Config, sock *os.File) *exec.Cmd {
	env := cfg.Env
	if env == nil {
		env = os.Environ()
	}
	attr := &syscall.SysProcAttr{}
	if cfg.SysProcAttr != nil {
		*attr = *cfg.SysProcAttr
	}
	attr.Setpgid = true
	arg0, marker := helperArg0, childEnv
	if cfg.Reap {
		// The reaper leads a process group of its own: neither a
		// blocker's SIGSTOP of the worker's group nor a `kill -STOP` of
		// the caller's job stops it, so it can always act on the caller's
		// death. It starts the helper in another group.
		arg0, marker = reaperArg0, reaperEnv
		attr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: parentDeathSignal}
	}
	return &exec.Cmd{
		Path:        cfg.Self,
		Args:        append([]string{arg0}, cfg.Argv...),
		Env:         append(env[:len(env):len(env)], marker+"=1"),
		Dir:         cfg.Dir,
		Stdin:       cfg.Stdin,
		Stdout:      cfg.Stdout,
		Stderr:      cfg.Stderr,
		ExtraFiles:  []*os.File{sock},
		SysProcAttr: attr,
	}
}

// handshake receives the listener, starts serving and reaping, and sends
// the helper its go-ahead. If it fails after serving started, it returns
// the Supervisor with the error, for abandon.
func handshake(ctx context.Context, cfg Config, cmd *exec.Cmd, sock *os.File, waited <-chan error) (*Supervisor, error) {
	fc, err := net.FileConn(sock)
	if err != nil {
		return nil, fmt.Errorf("helper socket: %w", err)
	}
	defer fc.Close()
	conn := fc.(*net.UnixConn)
	listener, worker, err := receiveListener(ctx, conn, cfg.HandshakeTimeout, cfg.Argv[0])
	if err != nil {
		return nil, err
	}
	s, err := newSupervisor(ctx, cfg, cmd, listener, worker, waited)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Write([]byte(ackMessage)); err != nil {
		return s, fmt.Errorf("send go-ahead: %v: %w", err, ErrHandshake)
	}
	s.log.Debug("worker gated", "pid", worker, "argv", cfg.Argv)
	return s, nil
}

// newSupervisor takes over the listener and starts serving and reaping.
func newSupervisor(ctx context.Context, cfg Config, cmd *exec.Cmd, listener, worker int, waited <-chan error) (*Supervisor, error) {
	w, err := newWaker()
	if err != nil {
		closeAll([]int{listener})
		return nil, err
	}
	if err := setSyncWakeUp(listener); err != nil {
		cfg.Logger.Debug("synchronous wake-up unavailable", "error", err)
	}
	s := &Supervisor{
		cfg: cfg, log: cfg.Logger, cmd: cmd, waited: waited, worker: worker, listener: listener, waker: w,
		done: make(chan struct{}), exited: make(chan struct{}), ended: make(chan struct{}),
	}
	s.instant, _ = cfg.Decider.(InstantDecider)
	s.umask = ownUmask()
	ctx, cancel := context.WithCancelCause(ctx)
	s.ctx, s.cancel = ctx, func() { cancel(errServingEnded) }
	// Ending the context wakes the serve loop out of poll; the callback
	// returns at once, and the waker ignores it once closed.
	context.AfterFunc(s.ctx, w.wake)
	go s.serve()
	go s.reap()
	return s, nil
}

// reap waits for the worker (the helper, after its exec) to exit.
func (s *Supervisor) reap() {
	err := <-s.waited
	s.state = s.cmd.ProcessState
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) {
		s.waitErr = err
	}
	s.log.Debug("worker exited", "pid", s.cmd.Process.Pid, "state", s.state)
	close(s.exited)
}

// Pid is the worker's process id, which is also its process group id: the
// caller can stop, continue or kill the whole group with -Pid().
func (s *Supervisor) Pid() int { return s.worker }

// KillTree sends SIGKILL to the worker's whole tree: with Config.Reap,
// every process below the reaper (descendants that left the worker's
// process group or session included); without it, the worker's process
// group.
func (s *Supervisor) KillTree() {
	if s.cfg.Reap {
		_ = s.cmd.Process.Signal(killTreeSignal)
		return
	}
	_ = syscall.Kill(-s.worker, syscall.SIGKILL)
}

// Wait waits for the worker itself to exit and returns its state; with
// Config.Reap, for its whole tree to end, and the state is the worker's
// as the reaper reports it by ending the same way. err is only set when
// waiting failed (or copying a non-file stream did); a non-zero exit is in
// the state. Without Reap, descendants may still run and be gated: see
// Done.
func (s *Supervisor) Wait() (*os.ProcessState, error) {
	<-s.exited
	return s.state, s.waitErr
}

// Exited is closed once the worker itself has exited (with Config.Reap,
// its whole tree) and Wait will not block.
func (s *Supervisor) Exited() <-chan struct{} { return s.exited }

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
