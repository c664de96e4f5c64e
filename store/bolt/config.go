package bolt

import (
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
)

const (
	// DefaultMaxBatch bounds one commit. Larger batches amortize the
	// fdatasync of a journal commit over more events but make every caller
	// in the batch wait for the whole write; 1024 events is about 300 KiB
	// of JSON, written well within one fsync's latency.
	DefaultMaxBatch = 1024
	// DefaultLockTimeout is how long Open waits for the file lock. A
	// coordinator that finds the ledger locked should fail fast and say
	// so rather than queue behind another coordinator of the workspace.
	DefaultLockTimeout = time.Second
	// DefaultJournalSize is the size at which a journal segment is handed
	// to the bbolt file and commits move to the other segment. Larger
	// segments mean fewer, larger copies into bbolt but more events held
	// in memory until they are copied (up to two segments' worth); 1 MiB
	// is about 3,000 lease events.
	DefaultJournalSize = 1 << 20
	// DefaultMaxInFlight is how many commits may be on their way to disk at
	// once. On the virtio disk of the quality bar's 2-core machine two
	// synchronous writes at once each take about 1.5 times as long as one
	// alone, and every commit costs about 100 µs of CPU: one at a time, with
	// everything that queued meanwhile in the next, gives larger batches
	// (7.5 events a commit against 4.6 with two, 16 clients over the
	// socket) and more acquire+release pairs per second.
	DefaultMaxInFlight = 1
	// DefaultCopyRetry is how often a failed copy of the journal into the
	// bbolt file (a full disk) is tried again. Each try costs one bbolt
	// transaction; a second means space that returns is used within one.
	DefaultCopyRetry = time.Second
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
	// JournalSize is the size in bytes of each of the two journal
	// segments, which are filled with zeros when they are created. Default
	// 0, which means DefaultJournalSize (1 MiB).
	JournalSize int64
	// MaxInFlight is how many commits may be written at once; they are
	// acknowledged in order. Default 0, which means DefaultMaxInFlight (1).
	MaxInFlight int
	// CopyRetry is how often a failed copy of the journal into the bbolt
	// file is tried again while the ledger is degraded. Default 0, which
	// means DefaultCopyRetry (1 s).
	CopyRetry time.Duration
}

// DefaultConfig returns a durable configuration with every default filled
// in.
func DefaultConfig() Config {
	return Config{MaxBatch: DefaultMaxBatch, LockTimeout: DefaultLockTimeout, JournalSize: DefaultJournalSize, MaxInFlight: DefaultMaxInFlight, CopyRetry: DefaultCopyRetry}
}

// Validate reports a field that has no meaning.
func (c Config) Validate() error {
	switch {
	case c.MaxBatch < 0:
		return fmt.Errorf("max batch %d is negative", c.MaxBatch)
	case c.LockTimeout < 0:
		return fmt.Errorf("lock timeout %s is negative", c.LockTimeout)
	case c.JournalSize < 0:
		return fmt.Errorf("journal size %d is negative", c.JournalSize)
	case c.MaxInFlight < 0:
		return fmt.Errorf("max in flight %d is negative", c.MaxInFlight)
	case c.CopyRetry < 0:
		return fmt.Errorf("copy retry %s is negative", c.CopyRetry)
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
	if c.JournalSize == 0 {
		c.JournalSize = DefaultJournalSize
	}
	if c.MaxInFlight == 0 {
		c.MaxInFlight = DefaultMaxInFlight
	}
	if c.CopyRetry == 0 {
		c.CopyRetry = DefaultCopyRetry
	}
	if c.Logger == nil {
		c.Logger = hclog.NewNullLogger()
	}
	return c
}
