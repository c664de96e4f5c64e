package bolt

import (
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
)

const (
	// DefaultMaxBatch bounds one commit. Larger batches amortize the two
	// fsyncs of a bbolt commit over more events but make every caller in
	// the batch wait for the whole write; 1024 events is about 300 KiB of
	// JSON, written well within one fsync's latency.
	DefaultMaxBatch = 1024
	// DefaultLockTimeout is how long Open waits for the file lock. A
	// coordinator that finds the ledger locked should fail fast and say
	// so rather than queue behind another coordinator of the workspace.
	DefaultLockTimeout = time.Second
)

// Config tunes a Ledger. The zero value of every field means its default,
// so Config{} is valid.
type Config struct {
	// NoSync skips fsync on commit. Default false. For tests only: with it
	// an acknowledged event can be lost by a crash of the machine.
	NoSync bool
	// Logger receives lifecycle and failure messages. Default nil, which
	// means hclog.NewNullLogger().
	Logger hclog.Logger
	// MaxBatch is the most events one commit carries; one Append with more
	// events commits alone, never split. Default 0, which means
	// DefaultMaxBatch (1024 events).
	MaxBatch int
	// LockTimeout is how long Open waits for another holder of the file to
	// let go before failing with store.ErrLocked. Default 0, which means
	// DefaultLockTimeout (1 s).
	LockTimeout time.Duration
}

// DefaultConfig returns a durable configuration with every default filled
// in.
func DefaultConfig() Config {
	return Config{MaxBatch: DefaultMaxBatch, LockTimeout: DefaultLockTimeout}
}

// Validate reports a field that has no meaning.
func (c Config) Validate() error {
	switch {
	case c.MaxBatch < 0:
		return fmt.Errorf("max batch %d is negative", c.MaxBatch)
	case c.LockTimeout < 0:
		return fmt.Errorf("lock timeout %s is negative", c.LockTimeout)
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.MaxBatch == 0 {
		c.MaxBatch = DefaultMaxBatch
	}
	if c.LockTimeout == 0 {
		c.LockTimeout = DefaultLockTimeout
	}
	if c.Logger == nil {
		c.Logger = hclog.NewNullLogger()
	}
	return c
}
