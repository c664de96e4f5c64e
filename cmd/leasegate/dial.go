package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/internal/unixsock"
	"github.com/leasegate/leasegate/workspace"
)

// probeTimeout bounds the check that a coordinator answers.
const probeTimeout = 2 * time.Second

// dialConfig says how a command reaches its coordinator.
type dialConfig struct {
	// Start starts a coordinator when none answers.
	Start bool
	// Health asks the coordinator for its health; without it a socket
	// that accepts a connection counts as a coordinator (an agent hook's
	// first request follows at once and tells the rest).
	Health bool
	// RetryMax is the client's retries per call (0: the client's default).
	RetryMax int
	// Logger is the client's; nil means the command's.
	Logger hclog.Logger
}

// noCoordinatorError means no coordinator answers for the workspace and
// none was started.
type noCoordinatorError struct{ ws *workspace.Workspace }

func (e *noCoordinatorError) Error() string {
	return fmt.Sprintf("%v: no coordinator answers at %s", api.ErrUnavailable, e.ws.SocketPath())
}

func (e *noCoordinatorError) Is(target error) bool { return target == api.ErrUnavailable }

// dial reaches the coordinator of ws, starting one when none answers and
// cfg.Start is set: the one way the CLI, the hooks and (through
// startServer) the sidecar's restart reach a coordinator. A coordinator
// that holds the workspace but does not answer is not started again, and
// one in another user's state directory is neither reached nor started:
// that is said, never taken for "none running".
func (c *common) dial(ctx context.Context, ws *workspace.Workspace, cfg dialConfig) (*api.Client, error) {
	if err := ws.CheckStateOwner(); err != nil {
		return nil, fmt.Errorf("%w: %w", api.ErrUnavailable, err)
	}
	if cfg.Logger == nil {
		cfg.Logger = c.logger("leasegate")
	}
	cl, err := api.NewClient(api.ClientConfig{Socket: ws.SocketPath(), RetryMax: cfg.RetryMax, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	h, ok, refused := answers(ctx, cl, ws.SocketPath(), cfg.Health)
	switch {
	case refused != nil:
		err = fmt.Errorf("%w: %w", api.ErrUnavailable, refused)
	case ok:
		err = servesNamedLedger(ctx, cl, ws, h)
	case cfg.Start && !c.noStart:
		if err = c.startServer(ctx, ws, cl); err == nil {
			err = servesNamedLedger(ctx, cl, ws, nil)
		}
	default:
		err = &noCoordinatorError{ws: ws}
	}
	if err != nil {
		cl.Close()
		return nil, err
	}
	return cl, nil
}

// answers reports whether the coordinator at the unix socket path answers
// its health check, with the answer, or with health false only whether it
// accepts connections (and a nil answer). A socket that accepts no
// connection is not asked more; refused says why when the connection was
// not permitted.
func answers(ctx context.Context, cl *api.Client, path string, health bool) (h *api.Health, ok bool, refused error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if ok, refused := listening(ctx, path); !ok {
		return nil, false, refused
	}
	if !health {
		return nil, true, nil
	}
	hh, err := cl.Health(ctx)
	return &hh, err == nil, nil
}

// listening reports whether something accepts connections on the unix
// socket at path. A connection the system does not permit is refused with
// its cause: a sandbox that allows no network connections (Codex's
// workspace-write, whose git commits run the git hooks) refuses this one
// too, and taking it for no coordinator would start one and wait for it
// in vain.
func listening(ctx context.Context, path string) (bool, error) {
	c, err := unixsock.Dial(ctx, path)
	if errors.Is(err, fs.ErrPermission) {
		return false, fmt.Errorf("%w (a sandbox that allows no network connections refuses this one too: Codex's workspace-write does without network_access = true)", err)
	}
	if err != nil {
		return false, nil
	}
	_ = c.Close()
	return true, nil
}

// isNoCoordinator reports whether err says that no coordinator runs.
func isNoCoordinator(err error) bool {
	var nc *noCoordinatorError
	return errors.As(err, &nc)
}

// pollEvery is how often a command looks again at a coordinator it
// started or stopped: a start or stop is seen within a few tens of
// milliseconds of happening, at the cost of one cheap look each time.
const pollEvery = 50 * time.Millisecond

// errWaitLimit means a wait for a coordinator ran out of time.
var errWaitLimit = errors.New("wait limit reached")

// clk is the command's clock: c.clock, or the real clock when none is set.
func (c *common) clk() clock.Clock {
	if c.clock == nil {
		return clock.New()
	}
	return c.clock
}

// waitFor looks at ready every pollEvery, at once first, until it holds;
// it returns errWaitLimit once limit has passed without that, or ctx's
// error if ctx ends first. Both count on c's clock.
func (c *common) waitFor(ctx context.Context, limit time.Duration, ready func() bool) error {
	clk := c.clk()
	deadline := clk.Now().Add(limit)
	for {
		if ready() {
			return nil
		}
		if !clk.Now().Before(deadline) {
			return errWaitLimit
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-clk.After(pollEvery):
		}
	}
}

// waitHealthy waits until the coordinator answers its health check.
func (c *common) waitHealthy(ctx context.Context, cl *api.Client, who, logPath string) error {
	err := c.waitFor(ctx, startWait, func() bool { _, err := cl.Health(ctx); return err == nil })
	if errors.Is(err, errWaitLimit) {
		return fmt.Errorf("%w: %s did not answer within %s; see %s", api.ErrUnavailable, who, startWait, logPath)
	}
	return err
}

// waitStopped waits until no coordinator holds the workspace's serve
// lock: the coordinator has closed its ledger and ended.
func (c *common) waitStopped(ctx context.Context, ws *workspace.Workspace) error {
	err := c.waitFor(ctx, stopWait, func() bool { _, serving := ws.Serving(); return !serving })
	if errors.Is(err, errWaitLimit) {
		return fmt.Errorf("still serves after %s", stopWait)
	}
	return err
}
