package scheduler

import (
	"errors"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/gate"
)

// Contract defaults. Each is exact and asserted by tests; RetryAfter and
// IdleAfter may only be shortened, for tests and demos.
const (
	// DefaultRetryAfter is the wait between a denied mutation and its one
	// retry. A writer blocked by another owner's lease waits this long,
	// exactly once, before a still-held path becomes a blocker report: long
	// enough for a holder to finish a typical edit-and-test turn and
	// release, short enough that a real conflict reaches an operator within
	// minutes. No short-loop retries: they add load and flapping without
	// making the holder finish sooner.
	DefaultRetryAfter = 180 * time.Second

	// DefaultIdleAfter is how long a stopped owner may go without a
	// mutation before its leases are released. Shorter frees files sooner
	// but releases the leases of an agent that merely paused between two
	// tool calls; 30 s covers that pause, and any activity before it
	// elapses cancels the release.
	DefaultIdleAfter = 30 * time.Second

	// DefaultSweepEvery is the period of the expiry sweep. A check-out
	// lease is expired by the sweep at most this long after its TTL ran out
	// (its holder is denied from ExpiresAt on regardless, by the decision
	// engine); a shorter period only adds table scans.
	DefaultSweepEvery = time.Minute

	// DefaultRemindBefore is how long before a check-out lease expires its
	// one reminder is sent; it is the lease model's own constant, so the
	// two cannot drift apart.
	DefaultRemindBefore = gate.DefaultRemindBefore
)

// ErrInvalidConfig is returned (wrapped) by Config.Validate and New.
var ErrInvalidConfig = errors.New("invalid scheduler config")

// Config configures a Scheduler. Every duration is required: start from
// DefaultConfig() and shorten RetryAfter or IdleAfter for tests and demos.
type Config struct {
	// Clock is the time source of every timer; nil means the real clock.
	// With a *clock.Mock, let Run go idle before each Add (synctest.Wait
	// does it): a timer Run arms while Add is under way is measured from a
	// later Now() and fires late.
	Clock clock.Clock
	// RetryAfter is the wait before the one retry of a denied mutation.
	// Default 180 s (DefaultRetryAfter); it may be shortened, never
	// lengthened, and must be positive.
	RetryAfter time.Duration
	// IdleAfter is the stop-idle window. Default 30 s (DefaultIdleAfter);
	// it may be shortened, never lengthened, and must be positive.
	IdleAfter time.Duration
	// SweepEvery is the period of the expiry sweep. Default 1 min
	// (DefaultSweepEvery); it must be positive.
	SweepEvery time.Duration
	// RemindBefore is how long before expiry a reminder fires. Default 2 h
	// (DefaultRemindBefore); it must be positive.
	RemindBefore time.Duration
	// Logger receives debug logs of timers armed, fired and cancelled; nil
	// means no logging.
	Logger hclog.Logger
}

// DefaultConfig returns the contract defaults: retry after 180 s, stop-idle
// after 30 s, a sweep every minute, a reminder 2 h before expiry, the real
// clock and no logging.
func DefaultConfig() Config {
	return Config{
		RetryAfter:   DefaultRetryAfter,
		IdleAfter:    DefaultIdleAfter,
		SweepEvery:   DefaultSweepEvery,
		RemindBefore: DefaultRemindBefore,
	}
}

// Validate reports what is wrong with c, wrapping ErrInvalidConfig: a
// duration that is zero or negative, or a RetryAfter or IdleAfter longer
// than the contract's.
func (c Config) Validate() error {
	var errs []error
	for _, d := range []struct {
		name     string
		got, max time.Duration
	}{
		{"retry-after", c.RetryAfter, DefaultRetryAfter},
		{"idle-after", c.IdleAfter, DefaultIdleAfter},
		{"sweep-every", c.SweepEvery, 0},
		{"remind-before", c.RemindBefore, 0},
	} {
		switch {
		case d.got <= 0:
			errs = append(errs, fmt.Errorf("%s %s: must be positive: %w", d.name, d.got, ErrInvalidConfig))
		case d.max > 0 && d.got > d.max:
			errs = append(errs, fmt.Errorf("%s %s: longer than the contract's %s: %w", d.name, d.got, d.max, ErrInvalidConfig))
		}
	}
	return errors.Join(errs...)
}
