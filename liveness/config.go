package liveness

import (
	"errors"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/hashicorp/go-hclog"
)

const (
	// DefaultHeartbeatInterval is how often a sidecar reports that its owner
	// is alive. Shorter intervals notice a silent remote death sooner but
	// cost one request per owner per interval; at 2 s the cost is negligible
	// and a heartbeat-judged owner is reclaimed within a TTL.
	DefaultHeartbeatInterval = 2 * time.Second

	// DefaultTTL is how old a heartbeat may be before its owner is dead:
	// five beats at DefaultHeartbeatInterval. A longer TTL holds the leases
	// of a vanished remote owner longer; a shorter one risks calling a live
	// owner dead when its sidecar stalls (a GC pause, a loaded machine, a
	// slow network). Local owners are judged by their process, not by this
	// TTL, so a killed local owner is reclaimed at once.
	DefaultTTL = 10 * time.Second

	// MinBeatsPerTTL is the fewest heartbeat intervals a TTL may span, so
	// that a single missed beat never makes an owner dead.
	MinBeatsPerTTL = 3

	// StartSlack is how far a process's create time may be from the
	// owner's registered StartTime and still be the owner. Linux derives
	// create times from the boot time in /proc/stat, which is whole seconds
	// and moves when the wall clock is stepped, so one process can read a
	// second apart in two programs. The slack misses only a pid reused
	// within about two seconds of the owner's start (create times are
	// whole seconds), which needs the owner to exit and the pid space to
	// wrap around in that time.
	StartSlack = time.Second
)

// ErrInvalidConfig is returned (wrapped) by Config.Validate and New.
var ErrInvalidConfig = errors.New("invalid liveness config")

// Config configures an Evaluator. The zero value of every field means its
// default, so Config{} and DefaultConfig() behave the same.
type Config struct {
	// TTL is the heartbeat liveness TTL: an owner judged by heartbeat is
	// dead once its last heartbeat is older than this. Zero means 10 s
	// (DefaultTTL); it must span at least MinBeatsPerTTL heartbeat
	// intervals.
	TTL time.Duration
	// HeartbeatInterval is how often sidecars beat. Zero means 2 s
	// (DefaultHeartbeatInterval). It only bounds TTL here.
	HeartbeatInterval time.Duration
	// Host is this machine's hostname, compared with Owner.Host. Empty
	// means os.Hostname().
	Host string
	// Clock is the time source of Check; nil means the real clock.
	Clock clock.Clock
	// Logger receives debug logs of verdicts; nil means no logging.
	Logger hclog.Logger
	// Descriptors records a process lookup that fails for want of a
	// descriptor (EMFILE), so the coordinator can name its open-files
	// limit; nil records nothing.
	Descriptors *Descriptors
}

// DefaultConfig returns the defaults: TTL 10 s, heartbeat interval 2 s,
// this host, the real clock, no logging.
func DefaultConfig() Config {
	return Config{TTL: DefaultTTL, HeartbeatInterval: DefaultHeartbeatInterval}
}

// Validate reports what is wrong with c, wrapping ErrInvalidConfig: a
// negative duration, or a TTL shorter than MinBeatsPerTTL heartbeat
// intervals (so that one missed beat could make an owner dead).
func (c Config) Validate() error {
	if c.TTL < 0 || c.HeartbeatInterval < 0 {
		return fmt.Errorf("ttl %s, heartbeat interval %s: negative: %w", c.TTL, c.HeartbeatInterval, ErrInvalidConfig)
	}
	d := c.withDefaults()
	if d.TTL < MinBeatsPerTTL*d.HeartbeatInterval {
		return fmt.Errorf("ttl %s below %d heartbeat intervals of %s: %w",
			d.TTL, MinBeatsPerTTL, d.HeartbeatInterval, ErrInvalidConfig)
	}
	return nil
}

// withDefaults returns c with its zero durations set.
func (c Config) withDefaults() Config {
	if c.TTL == 0 {
		c.TTL = DefaultTTL
	}
	if c.HeartbeatInterval == 0 {
		c.HeartbeatInterval = DefaultHeartbeatInterval
	}
	return c
}
