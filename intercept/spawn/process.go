//go:build linux

package spawn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"github.com/leasegate/leasegate/intercept/procfs"
	"github.com/leasegate/leasegate/internal/envname"
)

// Process is a worker started under a gate, as its supervisor sees it.
// Each adapter's Supervisor embeds it: Pid, KillTree, Wait and Exited are
// the same whatever the gate.
type Process struct {
	reap    bool
	cmd     *exec.Cmd // the helper (the worker after its exec), or the reaper
	worker  int       // the worker's pid, as the kernel gave it in the handshake
	exited  chan struct{}
	state   *os.ProcessState
	waitErr error
}

// Launch runs c.Argv under gate g: it re-executes c.Self as g's helper
// (through the reaper with c.Reap), has serve take the fd the helper hands
// over and start serving it, and then lets the helper exec the worker. If
// the helper fails, serve fails or the go-ahead cannot be sent, the helper
// is ended, what serve started is closed, and the error returned. The
// worker leads its own process group.
func Launch[S io.Closer](ctx context.Context, g Gate, c Command, serve func(p *Process, fd int) (S, error)) (S, error) {
	var none S
	h, fd, err := start(ctx, g, c)
	if err != nil {
		return none, err
	}
	s, err := serve(h.proc, fd)
	if err != nil {
		h.abandon()
		return none, err
	}
	if err := h.goAhead(); err != nil {
		h.abandon()
		s.Close()
		return none, err
	}
	return s, nil
}

// handoff is a helper that has handed over its gate's fd and waits for the
// supervisor to serve it.
type handoff struct {
	proc *Process
	conn *net.UnixConn
}

// start re-executes c.Self as g's helper and returns once the helper has
// handed over the gate's fd.
func start(ctx context.Context, g Gate, c Command) (h *handoff, fd int, err error) {
	if err := c.Validate(); err != nil {
		return nil, -1, err
	}
	c = c.WithDefaults()
	if err := CheckProcRoom(); err != nil {
		return nil, -1, err
	}
	parent, child, err := socketPair()
	if err != nil {
		return nil, -1, err
	}
	defer parent.Close()
	h = &handoff{proc: &Process{reap: c.Reap, cmd: helperCommand(g, c, child), exited: make(chan struct{})}}
	waited, err := startLocked(h.proc.cmd)
	child.Close()
	if err != nil {
		return nil, -1, fmt.Errorf("start %s helper %s: %w", g.Name, c.Self, ProcLimited(err))
	}
	go h.proc.reapWorker(waited)
	if fd, err = h.handshake(ctx, g, c, parent); err != nil {
		h.abandon()
		return nil, -1, err
	}
	return h, fd, nil
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

// helperCommand builds the helper's command: Self with the worker's argv,
// environment and streams, the marker variable, and the socket on fd 3.
func helperCommand(g Gate, c Command, sock *os.File) *exec.Cmd {
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	attr := &syscall.SysProcAttr{}
	if c.SysProcAttr != nil {
		*attr = *c.SysProcAttr
	}
	attr.Setpgid = true
	arg0, marker := g.helperArg0(), envname.SpawnHelper
	if c.Reap {
		// The reaper leads a process group of its own: neither a
		// blocker's SIGSTOP of the worker's group nor a `kill -STOP` of
		// the caller's job stops it, so it can always act on the caller's
		// death. It starts the helper in another group.
		arg0, marker = g.reaperArg0(), envname.SpawnReaper
		attr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: parentDeathSignal}
	}
	return &exec.Cmd{
		Path:        c.Self,
		Args:        append([]string{arg0}, c.Argv...),
		Env:         append(env[:len(env):len(env)], marker+"="+g.Name),
		Dir:         c.Dir,
		Stdin:       c.Stdin,
		Stdout:      c.Stdout,
		Stderr:      c.Stderr,
		ExtraFiles:  []*os.File{sock},
		SysProcAttr: attr,
	}
}

// handshake receives the gate's fd and the worker's pid, and keeps the
// connection for Go.
func (h *handoff) handshake(ctx context.Context, g Gate, c Command, sock *os.File) (int, error) {
	fc, err := net.FileConn(sock)
	if err != nil {
		return -1, fmt.Errorf("helper socket: %w", err)
	}
	h.conn = fc.(*net.UnixConn)
	fd, worker, err := receiveFD(ctx, g, h.conn, c.HandshakeTimeout, c.Argv[0])
	if err != nil {
		return -1, err
	}
	h.proc.worker = worker
	return fd, nil
}

// goAhead tells the helper that its gate is served: it goes on
// (Gate.Setup returns) and execs the worker.
func (h *handoff) goAhead() error {
	defer h.conn.Close()
	if _, err := h.conn.Write([]byte(ackMessage)); err != nil {
		return fmt.Errorf("send go-ahead: %v: %w", err, ErrHandshake)
	}
	return nil
}

// abandon kills a helper that is not to start its worker and waits for it.
func (h *handoff) abandon() {
	if h.conn != nil {
		h.conn.Close()
	}
	_ = h.proc.cmd.Process.Kill()
	<-h.proc.exited
}

// reapWorker waits for the worker (the helper, after its exec) to exit.
func (p *Process) reapWorker(waited <-chan error) {
	err := <-waited
	p.state = p.cmd.ProcessState
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) {
		p.waitErr = err
	}
	close(p.exited)
}

// Pid is the worker's process id, which is also its process group id: the
// caller can stop, continue or kill the whole group with -Pid().
func (p *Process) Pid() int { return p.worker }

// InTree reports whether pid is the worker or one of its descendants
// (with Command.Reap, an orphan of the worker's tree too; the reaper
// itself is not of the tree).
func (p *Process) InTree(pid int) bool {
	root := p.cmd.Process.Pid
	if p.reap && pid == root {
		return false
	}
	for range maxTreeDepth {
		switch {
		case pid == root:
			return true
		case pid <= 1:
			return false
		}
		ppid, ok := procfs.Parent(pid)
		if !ok {
			return false
		}
		pid = ppid
	}
	return false
}

// maxTreeDepth bounds the walk up from a process to the worker; a tree
// deeper than this is taken for one the process is not in.
const maxTreeDepth = 4096

// KillTree sends SIGKILL to the worker's whole tree: with Command.Reap,
// every process below the reaper (descendants that left the worker's
// process group or session included); without it, the worker's process
// group.
func (p *Process) KillTree() {
	if p.reap {
		_ = p.cmd.Process.Signal(killTreeSignal)
		return
	}
	_ = syscall.Kill(-p.worker, syscall.SIGKILL)
}

// Wait waits for the worker itself to exit and returns its state; with
// Command.Reap, for its whole tree to end, and the state is the worker's
// as the reaper reports it by ending the same way. err is only set when
// waiting failed (or copying a non-file stream did); a non-zero exit is in
// the state.
func (p *Process) Wait() (*os.ProcessState, error) {
	<-p.exited
	return p.state, p.waitErr
}

// Exited is closed once the worker itself has exited (with Command.Reap,
// its whole tree) and Wait will not block.
func (p *Process) Exited() <-chan struct{} { return p.exited }
