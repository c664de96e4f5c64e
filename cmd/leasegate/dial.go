package main

import (
	"context"
	"errors"
	"fmt"
	"time"

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
// that holds the workspace but does not answer is not started again.
func (c *common) dial(ctx context.Context, ws *workspace.Workspace, cfg dialConfig) (*api.Client, error) {
	if cfg.Logger == nil {
		cfg.Logger = c.logger("leasegate")
	}
	cl, err := api.NewClient(api.ClientConfig{Socket: ws.SocketPath(), RetryMax: cfg.RetryMax, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	if answers(ctx, cl, ws.SocketPath(), cfg.Health) {
		return cl, nil
	}
	if cfg.Start && !c.noStart {
		err = c.startServer(ctx, ws, cl)
	} else {
		err = &noCoordinatorError{ws: ws}
	}
	if err != nil {
		cl.Close()
		return nil, err
	}
	return cl, nil
}

// answers reports whether the coordinator at the unix socket path answers
// its health check, or with health false only whether it accepts
// connections. A socket that accepts no connection is not asked more.
func answers(ctx context.Context, cl *api.Client, path string, health bool) bool {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if !listening(ctx, path) {
		return false
	}
	if !health {
		return true
	}
	_, err := cl.Health(ctx)
	return err == nil
}

// listening reports whether something accepts connections on the unix
// socket at path.
func listening(ctx context.Context, path string) bool {
	c, err := unixsock.Dial(ctx, path)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}

// isNoCoordinator reports whether err says that no coordinator runs.
func isNoCoordinator(err error) bool {
	var nc *noCoordinatorError
	return errors.As(err, &nc)
}
