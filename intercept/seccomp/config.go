package seccomp

import (
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/intercept"
	"github.com/leasegate/leasegate/intercept/spawn"
)

const (
	// DefaultSelf is the executable re-executed as the filter-installing
	// helper: the running binary itself, which must call MaybeRunChild
	// early in main (or TestMain).
	DefaultSelf = spawn.DefaultSelf

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
	// to install its filter and hand over the listener.
	DefaultHandshakeTimeout = spawn.DefaultHandshakeTimeout
)

// Config describes the worker to run under the gate.
type Config struct {
	// Command is the worker: its argv, environment, streams, whether a
	// reaper is put between it and the supervisor (Reap), the binary
	// re-executed as the helper (Self) and the handshake's timeout.
	spawn.Command
	// Decider answers each mutation. Required.
	Decider intercept.Decider
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
}

// DefaultConfig returns a Config with every default filled in; the caller
// adds Argv and Decider.
func DefaultConfig() Config {
	return Config{
		Command:      spawn.Command{Self: DefaultSelf, HandshakeTimeout: DefaultHandshakeTimeout},
		Logger:       hclog.Default().Named("seccomp"),
		ValidityPoll: DefaultValidityPoll,
		StallAfter:   DefaultStallAfter,
	}
}

// Validate reports what is wrong with c, wrapping ErrInvalidConfig. Zero
// durations and an empty Self are allowed: Start fills in the defaults.
func (c Config) Validate() error {
	if err := c.Command.Validate(); err != nil {
		return fmt.Errorf("%w: %w", err, ErrInvalidConfig)
	}
	switch {
	case c.Decider == nil:
		return fmt.Errorf("no decider: %w", ErrInvalidConfig)
	case c.ValidityPoll < 0:
		return fmt.Errorf("validity poll %s negative: %w", c.ValidityPoll, ErrInvalidConfig)
	case c.StallAfter < 0:
		return fmt.Errorf("stall after %s negative: %w", c.StallAfter, ErrInvalidConfig)
	}
	return nil
}

// withDefaults returns c with zero fields replaced by their defaults.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	c.Command = c.Command.WithDefaults()
	if c.Logger == nil {
		c.Logger = d.Logger
	}
	if c.ValidityPoll == 0 {
		c.ValidityPoll = d.ValidityPoll
	}
	if c.StallAfter == 0 {
		c.StallAfter = d.StallAfter
	}
	return c
}
