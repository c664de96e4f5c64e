package seccomp

import (
	"fmt"
	"io"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
)

const (
	// DefaultSelf is the executable re-executed as the filter-installing
	// helper: the running binary itself, which must call MaybeRunChild
	// early in main (or TestMain).
	DefaultSelf = "/proc/self/exe"

	// DefaultValidityPoll is how often a held notification is checked with
	// SECCOMP_IOCTL_NOTIF_ID_VALID while its Decider runs. The kernel does
	// not tell the listener when a waiting thread is killed, so this is how
	// long a SIGKILLed worker's Decide context can stay alive at most. One
	// ioctl per held syscall per interval is cheap; shorter intervals only
	// matter for Deciders that hold for a long time.
	DefaultValidityPoll = 200 * time.Millisecond

	// DefaultStallAfter is how long one notification may occupy the
	// receiving goroutine before another receiver takes over. Notifications
	// are examined and, when the Decider can answer at once, answered on
	// the goroutine that receives them: a hop to another goroutine costs
	// several times more than the rest of the work. Examining a path can
	// still block (a hung network or FUSE mount, or a FUSE server that is
	// itself one of the gated processes and waits for its own syscall), and
	// then the other threads' syscalls must not wait behind it. Shorter
	// means less delay for them in that rare case; a check every interval
	// costs one timer wake-up.
	DefaultStallAfter = 50 * time.Millisecond

	// DefaultHandshakeTimeout bounds how long Start waits for the helper
	// to install its filter and hand over the listener: a Go binary's
	// start-up takes milliseconds, so this only catches a Self that never
	// answers.
	DefaultHandshakeTimeout = 10 * time.Second
)

// Config describes the worker to run under the gate.
type Config struct {
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
	// Decider answers each mutation. Required.
	Decider Decider
	// Logger receives the supervisor's logs; nil means
	// hclog.Default().Named("seccomp").
	Logger hclog.Logger
	// ValidityPoll is the interval of the liveness check of held
	// notifications. Default DefaultValidityPoll (200 ms).
	ValidityPoll time.Duration
	// StallAfter is how long one notification may occupy the receiving
	// goroutine before another receiver takes over. Default
	// DefaultStallAfter (50 ms).
	StallAfter time.Duration
	// HandshakeTimeout bounds the helper's start-up. Default
	// DefaultHandshakeTimeout (10 s).
	HandshakeTimeout time.Duration
}

// DefaultConfig returns a Config with every default filled in; the caller
// adds Argv and Decider.
func DefaultConfig() Config {
	return Config{
		Self:             DefaultSelf,
		Logger:           hclog.Default().Named("seccomp"),
		ValidityPoll:     DefaultValidityPoll,
		StallAfter:       DefaultStallAfter,
		HandshakeTimeout: DefaultHandshakeTimeout,
	}
}

// Validate reports what is wrong with c, wrapping ErrInvalidConfig. Zero
// durations and an empty Self are allowed: Start fills in the defaults.
func (c Config) Validate() error {
	switch {
	case len(c.Argv) == 0 || c.Argv[0] == "":
		return fmt.Errorf("empty argv: %w", ErrInvalidConfig)
	case c.Decider == nil:
		return fmt.Errorf("no decider: %w", ErrInvalidConfig)
	case c.ValidityPoll < 0:
		return fmt.Errorf("validity poll %s negative: %w", c.ValidityPoll, ErrInvalidConfig)
	case c.StallAfter < 0:
		return fmt.Errorf("stall after %s negative: %w", c.StallAfter, ErrInvalidConfig)
	case c.HandshakeTimeout < 0:
		return fmt.Errorf("handshake timeout %s negative: %w", c.HandshakeTimeout, ErrInvalidConfig)
	}
	return nil
}

// withDefaults returns c with zero fields replaced by their defaults.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.Self == "" {
		c.Self = d.Self
	}
	if c.Logger == nil {
		c.Logger = d.Logger
	}
	if c.ValidityPoll == 0 {
		c.ValidityPoll = d.ValidityPoll
	}
	if c.StallAfter == 0 {
		c.StallAfter = d.StallAfter
	}
	if c.HandshakeTimeout == 0 {
		c.HandshakeTimeout = d.HandshakeTimeout
	}
	return c
}
