package mcp

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// Coordinator is what the tools need of the coordinator; *api.Client
// implements it.
type Coordinator interface {
	Status(ctx context.Context) (leasegate.Status, error)
	Whoami(ctx context.Context) (leasegate.CallerView, error)
	Check(ctx context.Context, paths []string) (leasegate.CheckView, error)
	Join(ctx context.Context, r leasegate.Registration) (string, error)
	Lease(ctx context.Context, req leasegate.LeaseRequest) (leasegate.LeaseResult, error)
	GetLease(ctx context.Context, id gate.LeaseID) (gate.Lease, error)
	Leases(ctx context.Context, path string) ([]gate.Lease, error)
	History(ctx context.Context, id gate.LeaseID, path string, limit int) ([]gate.Event, error)
	Blockers(ctx context.Context, all bool) ([]blocker.Report, error)
	Blocker(ctx context.Context, id string) (blocker.Report, error)
	Events(ctx context.Context, after uint64, follow bool, fn func(gate.Event) error) error
	Close()
}

var _ Coordinator = (*api.Client)(nil)

// ConnectFunc returns a client of the workspace's coordinator, starting
// one when none answers (unless the user said not to). It fails with an
// error wrapping api.ErrUnavailable when none can be reached.
type ConnectFunc func(ctx context.Context) (Coordinator, error)

// conn keeps one client for the session's calls and connects again after
// the coordinator was found unavailable, so a restarted coordinator is
// reached without restarting the server.
type conn struct {
	connect ConnectFunc
	// connecting is held by the one call that connects: a one-slot
	// channel rather than a mutex, so that a call waiting behind a
	// connect that gets no answer (a paused coordinator) gives up at its
	// own deadline.
	connecting chan struct{}
	mu         sync.Mutex
	cl         Coordinator
}

func newConn(connect ConnectFunc) *conn {
	return &conn{connect: connect, connecting: make(chan struct{}, 1)}
}

// get returns the client, connecting first if there is none.
func (c *conn) get(ctx context.Context) (Coordinator, error) {
	if cl := c.current(); cl != nil {
		return cl, nil
	}
	select {
	case c.connecting <- struct{}{}:
	case <-ctx.Done():
		return nil, unavailable(fmt.Errorf("still connecting: %w", ctx.Err()))
	}
	defer func() { <-c.connecting }()
	if cl := c.current(); cl != nil {
		return cl, nil
	}
	cl, err := c.connect(ctx)
	if err != nil {
		return nil, unavailable(err)
	}
	c.mu.Lock()
	c.cl = cl
	c.mu.Unlock()
	return cl, nil
}

func (c *conn) current() Coordinator {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cl
}

// check drops the client when err says the coordinator is unavailable,
// and turns err into the tool's error.
func (c *conn) check(cl Coordinator, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, api.ErrUnavailable) {
		c.mu.Lock()
		if c.cl == cl {
			c.cl = nil
			cl.Close()
		}
		c.mu.Unlock()
		return unavailable(err)
	}
	return fromAPI(err)
}

// close closes the client, if any.
func (c *conn) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cl != nil {
		c.cl.Close()
		c.cl = nil
	}
}
