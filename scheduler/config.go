package scheduler

import (
	"errors"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/gate"
)

// Timing defaults. Each is exact and asserted by tests. The retry and
// stop-idle windows are not here: they belong to the owner that names
// them (gate.Windows), and each call passes its own.
const (
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
// DefaultConfig().
type Config struct {
	// Clock is the time source of every timer; nil means the real clock.
	// With a *clock.Mock, let Run go idle before each Add (synctest.Wait
	// does it): a timer Run arms while Add is under way is measured from a
	// later Now() and fires late.
	Clock clock.Clock
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

// DefaultConfig returns the defaults: a sweep every minute, a reminder
// 2 h before expiry, the real clock and no logging.
func DefaultConfig() Config {
	return Config{
		SweepEvery:   DefaultSweepEvery,
		RemindBefore: DefaultRemindBefore,
	}
}

// Validate reports what is wrong with c, wrapping ErrInvalidConfig: a
// duration that is zero or negative.
func (c Config) Validate() error {
	var errs []error
	for _, d := range []struct {
		name string
		got  time.Duration
	}{
		{"sweep-every", c.SweepEvery},
		{"remind-before", c.RemindBefore},
	} {
		if d.got <= 0 {
			errs = append(errs, fmt.Errorf("%s %s: must be positive: %w", d.name, d.got, ErrInvalidConfig))
		}
	}
	return errors.Join(errs...)
}
