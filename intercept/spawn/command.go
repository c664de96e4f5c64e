package spawn

import (
	"errors"
	"fmt"
	"io"
	"syscall"
	"time"
)

const (
	// DefaultSelf is the executable re-executed as the helper: the running
	// binary itself, which must call the adapter's MaybeRunChild (MaybeRun)
	// early in main (or TestMain).
	DefaultSelf = "/proc/self/exe"

	// DefaultHandshakeTimeout bounds how long Start waits for the helper
	// to put itself under the gate and hand over its fd: a Go binary's
	// start-up takes milliseconds, so this only catches a Self that never
	// answers.
	DefaultHandshakeTimeout = 10 * time.Second
)

var (
	// ErrInvalidCommand is returned (wrapped) by Command.Validate and
	// Start.
	ErrInvalidCommand = errors.New("invalid worker command")

	// ErrHandshake is returned (wrapped) by Start when the re-executed
	// helper did not hand over its fd: it crashed, was killed, or Self is
	// not a binary that calls MaybeRun.
	ErrHandshake = errors.New("gate helper handshake failed")
)

// Command describes the worker to start under a gate.
type Command struct {
	// Argv is the worker's command line; Argv[0] is looked up in the PATH
	// of Env. Required.
	Argv []string
	// Env is the worker's environment; nil means os.Environ().
	Env []string
	// Dir is the worker's working directory; "" means the caller's.
	Dir string
	// Stdin, Stdout and Stderr are the worker's standard streams, as in
	// os/exec; nil means /dev/null. A stream that is not an *os.File is
	// copied through a pipe, and Wait then also waits until every
	// descendant holding that pipe has closed it.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// SysProcAttr is passed to the helper (and survives its exec into the
	// worker). Setpgid is always forced on: the worker leads its own
	// process group so that the caller can stop, continue or kill the
	// whole group with Pid(). Nil means only that.
	SysProcAttr *syscall.SysProcAttr
	// Reap puts a reaper between the supervisor and the worker: a process
	// (Self re-executed) that is a child subreaper, so that every orphan
	// of the worker's tree is re-parented to it, and that kills the whole
	// tree, setsid'd and daemonized descendants included, when the
	// supervisor's process dies, even by SIGKILL (its parent-death
	// signal), or on KillTree. Without it only the worker itself can be
	// given a parent-death signal (SysProcAttr.Pdeathsig) and its
	// descendants outlive the supervisor. With it, SysProcAttr is not
	// used, the worker still leads its own process group (Pid), and Wait
	// and Exited report the worker's status once its whole tree has ended.
	Reap bool
	// Self is the executable re-executed as the helper. Default
	// DefaultSelf (/proc/self/exe).
	Self string
	// HandshakeTimeout bounds the helper's start-up. Default
	// DefaultHandshakeTimeout (10 s).
	HandshakeTimeout time.Duration
}

// Validate reports what is wrong with c, wrapping ErrInvalidCommand. A zero
// HandshakeTimeout and an empty Self are allowed: Start fills in the
// defaults.
func (c Command) Validate() error {
	switch {
	case len(c.Argv) == 0 || c.Argv[0] == "":
		return fmt.Errorf("empty argv: %w", ErrInvalidCommand)
	case c.HandshakeTimeout < 0:
		return fmt.Errorf("handshake timeout %s negative: %w", c.HandshakeTimeout, ErrInvalidCommand)
	}
	return nil
}

// WithDefaults returns c with zero fields replaced by their defaults.
func (c Command) WithDefaults() Command {
	if c.Self == "" {
		c.Self = DefaultSelf
	}
	if c.HandshakeTimeout == 0 {
		c.HandshakeTimeout = DefaultHandshakeTimeout
	}
	return c
}
