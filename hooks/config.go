package hooks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

const (
	// InstallTimeout is the timeout install gives an agent for one hook
	// call. An agent whose hook times out lets the tool run, so it must
	// exceed the 180 s retry and DefaultTimeout.
	InstallTimeout = 240 * time.Second

	// DefaultTimeout bounds one hook call: 50 s more than the contract's
	// 180 s retry, to wait for the retry's answer, and 10 s less than
	// InstallTimeout, so the hook denies before the agent gives up on it
	// and lets the write through.
	DefaultTimeout = 230 * time.Second

	// DefaultUnreachable is how long a hook keeps trying a coordinator that
	// does not answer before it denies. Longer rides out a coordinator
	// restart; shorter gives the agent its answer sooner. The agent waits
	// for the hook all that time, so it is short.
	DefaultUnreachable = 15 * time.Second
)

// Coordinator is what the hooks need of the coordinator; *api.Client
// implements it. Gated writes run the contention protocol (api.Gate) over
// it, as the sidecar's do.
type Coordinator interface {
	api.Mutator
	api.Owner
	ReleaseCommitted(ctx context.Context, name string) ([]gate.Lease, error)
	ReportUngated(ctx context.Context, w leasegate.UngatedWrite) error
	Leases(ctx context.Context, path string) ([]gate.Lease, error)
	Status(ctx context.Context) (leasegate.Status, error)
	Whoami(ctx context.Context) (leasegate.CallerView, error)
	Blockers(ctx context.Context, all bool) ([]blocker.Report, error)
	Blocker(ctx context.Context, id string) (blocker.Report, error)
	Close()
}

var _ Coordinator = (*api.Client)(nil)

// ConnectFunc returns a client of ws's coordinator, starting the
// coordinator when start is true and none answers. It fails with an error
// wrapping api.ErrUnavailable when no coordinator can be reached.
type ConnectFunc func(ctx context.Context, ws *workspace.Workspace, start bool) (Coordinator, error)

// Config configures a Handler.
type Config struct {
	// Connect reaches the coordinator. Required.
	Connect ConnectFunc
	// Dir is the workspace directory. Empty means the event's cwd, or the
	// current directory when the event has none.
	Dir string
	// Owner is the owner name to act as (LEASEGATE_AS), registered by the
	// sidecar that runs the agent. Empty means a name made from the agent
	// and the session id ("cc-" + session_id for Claude Code), registered
	// by the hook on first use with the agent's process as liveness handle.
	Owner string
	// UnderSidecar says the hook runs inside a worker of `leasegate run`
	// (see UnderSidecar): its sidecar gates every mutation the agent's
	// shell commands make, so the shell before/after comparison is
	// skipped, and nothing is kept in the state directory, which such a
	// worker may not write (the session is remembered in memory only, for
	// one call).
	UnderSidecar bool
	// Windows are the retry and stop-idle windows the hook names (its
	// --retry-after and --idle-after). The retry window goes with each
	// gated write; both go with the session's registration. Zero fields
	// leave the coordinator's default.
	Windows gate.Windows
	// Timeout bounds one hook call, the wait for the one retry included.
	// Default 230 s (DefaultTimeout).
	Timeout time.Duration
	// Unreachable is how long a call keeps trying a coordinator that does
	// not answer before it denies. Default 15 s (DefaultUnreachable).
	Unreachable time.Duration
	// Clock measures Unreachable; nil means the real clock.
	Clock clock.Clock
	// Logger; nil means no logging.
	Logger hclog.Logger
}

// DefaultConfig returns the defaults; Connect must still be set.
func DefaultConfig() Config {
	return Config{Timeout: DefaultTimeout, Unreachable: DefaultUnreachable}
}

// ErrInvalidConfig is returned (wrapped) by Validate and New.
var ErrInvalidConfig = errors.New("invalid hooks config")

// Validate reports what is wrong with c.
func (c Config) Validate() error {
	switch {
	case c.Connect == nil:
		return fmt.Errorf("connect is not set: %w", ErrInvalidConfig)
	case c.Timeout < 0 || c.Unreachable < 0:
		return fmt.Errorf("timeout %s, unreachable %s: negative: %w", c.Timeout, c.Unreachable, ErrInvalidConfig)
	}
	if err := c.Windows.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Unreachable == 0 {
		c.Unreachable = DefaultUnreachable
	}
	if c.Clock == nil {
		c.Clock = clock.New()
	}
	if c.Logger == nil {
		c.Logger = hclog.NewNullLogger()
	}
	return c
}
