package coordinator

import (
	"errors"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
	"github.com/leasegate/leasegate/store"
)

// DefaultLivenessEvery is how often owners holding leases are checked. A
// killed owner's leases are free within this interval (the contract asks for
// 1 s); a process lookup costs tens of microseconds per owner.
const DefaultLivenessEvery = 500 * time.Millisecond

// DefaultPruneAfter is how long terminal leases stay in the in-memory table
// (for status and quick history) before they are pruned; the ledger keeps
// them forever.
const DefaultPruneAfter = 24 * time.Hour

// DefaultKeepEnded bounds the terminal leases the in-memory table holds
// whatever their age: a worker that writes thousands of new files ends
// thousands of leases, and a day of those would hold hundreds of
// megabytes. The ledger keeps them all.
const DefaultKeepEnded = 10_000

// Config configures a Coordinator.
type Config struct {
	// Ledger is the durable event store. Required; the coordinator is its
	// only writer and closes it.
	Ledger store.Ledger
	// Liveness judges owners. Required.
	Liveness Prober
	// Workspace is the absolute workspace root, used to run git for commit
	// releases and to see what exists under a new directory's lease.
	// Empty disables commit releases and the narrowing of such leases.
	Workspace string
	// BlockerDir receives a Markdown and a JSON file per blocker report.
	// Empty keeps reports in the ledger only.
	BlockerDir string
	// PairRules pair source and test files. Default gate.DefaultPairRules.
	PairRules []gate.PairRule
	// Folding is how the workspace's volume compares names: gate.FoldCase
	// where names that differ only in case are one file,
	// gate.FoldNormalization where names that differ only in Unicode
	// normalization are, so that two spellings of a path not yet created
	// are one lease (serve takes it from the workspace: case on Windows
	// and on macOS unless the volume is case-sensitive, normalization on
	// macOS). Every table the coordinator replays, clones or rebuilds
	// takes it, and pair rules match under it. Default gate.ExactCase, as
	// on Linux.
	Folding gate.Folding
	// Windows are the retry and stop-idle windows of owners that name
	// none (serve's --retry-after and --idle-after). Default the
	// contract's, 3m0s and 30s; shorter only for tests and demos. An
	// owner's own windows (Registration.Windows) take precedence.
	Windows gate.Windows
	// LivenessEvery is the owner check interval. Default 500 ms.
	LivenessEvery time.Duration
	// PruneAfter is how long terminal leases stay in memory. Default 24 h.
	PruneAfter time.Duration
	// KeepEnded is how many terminal leases stay in memory at most: once
	// twice as many have ended, the oldest are pruned. Default 10,000.
	KeepEnded int
	// Notify, if set, receives every notice for an owner (reminder,
	// eviction, reclaim, blocker). It must not block for long.
	Notify func(leasegate.Notice)
	// Clock is the time source; nil means the real clock.
	Clock clock.Clock
	// Logger; nil means no logging.
	Logger hclog.Logger
	// Descriptors is the share of the open-files limit the owners' pidfds
	// (and those of callers whose writes wait) may hold, and where an open
	// that failed for want of a descriptor is recorded for status's
	// files_warning. Nil means pidfds without limit (serve sets it from
	// the limit).
	Descriptors *liveness.Descriptors
}

// Prober is the liveness evaluator as the coordinator uses it.
type Prober interface {
	Evaluate(s liveness.Subject, now time.Time) gate.Liveness
}

// DefaultConfig returns the contract defaults; Ledger and Liveness must
// still be set.
func DefaultConfig() Config {
	return Config{
		Windows:       gate.ContractWindows(),
		LivenessEvery: DefaultLivenessEvery,
		PruneAfter:    DefaultPruneAfter,
		KeepEnded:     DefaultKeepEnded,
	}
}

// Validate reports what is wrong with c.
func (c *Config) Validate() error {
	var errs []error
	if c.Ledger == nil {
		errs = append(errs, errors.New("ledger is required"))
	}
	if c.Liveness == nil {
		errs = append(errs, errors.New("liveness prober is required"))
	}
	if c.KeepEnded <= 0 {
		errs = append(errs, fmt.Errorf("keep-ended must be positive, got %d", c.KeepEnded))
	}
	errs = append(errs, gate.ValidRetryAfter(c.Windows.Retry.After, true), gate.ValidIdleAfter(c.Windows.Idle.After, true))
	for name, d := range map[string]time.Duration{
		"liveness-every": c.LivenessEvery, "prune-after": c.PruneAfter,
	} {
		if d <= 0 {
			errs = append(errs, fmt.Errorf("%s must be positive, got %s", name, d))
		}
	}
	return errors.Join(errs...)
}

func (c *Config) setDefaults() {
	if c.Clock == nil {
		c.Clock = clock.New()
	}
	if c.Logger == nil {
		c.Logger = hclog.NewNullLogger()
	}
	if c.PairRules == nil {
		c.PairRules, _ = gate.CompilePairRules(gate.DefaultPairRules)
	}
}
