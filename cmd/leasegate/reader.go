package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/workspace"
)

// reader connects a read-only command (status, blockers, history, events)
// to the workspace's running coordinator. It starts none and creates
// nothing: with none running it says so and returns a nil client, and the
// command ends there (exit 0; exit 5 under --json, where a script must
// tell "none running" from an empty answer).
func (c *common) reader(ctx context.Context) (*api.Client, *workspace.Workspace, error) {
	ws, err := c.workspace()
	if err != nil {
		return nil, nil, err
	}
	cl, err := c.dial(ctx, ws, dialConfig{Health: true})
	if isNoCoordinator(err) {
		if _, serving := ws.Serving(); serving {
			cl, err = c.awaitAnswer(ctx, ws)
		}
	}
	if isNoCoordinator(err) {
		return nil, ws, c.noneRunning(ws)
	}
	if err != nil {
		return nil, nil, err
	}
	return cl, ws, nil
}

// awaitAnswer waits for the coordinator that holds ws but did not answer
// the probe (paused, or still replaying its ledger), as the commands that
// change something do: until it answers, or ends (a noCoordinatorError),
// or Ctrl-C; answersAtOnce says on stderr that it waits. A read-only
// command gave up after the probe's 2 s with exit 5.
func (c *common) awaitAnswer(ctx context.Context, ws *workspace.Workspace) (*api.Client, error) {
	cl, err := api.NewClient(api.ClientConfig{Socket: ws.SocketPath(), RetryMax: 1, Logger: c.logger("leasegate")})
	if err != nil {
		return nil, err
	}
	for {
		h, err := cl.Health(ctx)
		switch {
		case err == nil:
			if err := servesNamedLedger(ctx, cl, ws, &h); err != nil {
				cl.Close()
				return nil, err
			}
			return cl, nil
		case ctx.Err() != nil:
			cl.Close()
			return nil, ctx.Err()
		}
		if _, serving := ws.Serving(); !serving {
			cl.Close()
			return nil, &noCoordinatorError{ws: ws}
		}
		select {
		case <-ctx.Done():
		case <-c.clk().After(pollEvery):
		}
	}
}

// noneRunning reports that no coordinator answers for ws: one that holds
// the workspace without answering is an error; otherwise a line on
// stdout, or the error under --json.
func (c *common) noneRunning(ws *workspace.Workspace) error {
	if pid, serving := ws.Serving(); serving {
		return fmt.Errorf("%w: the coordinator (pid %d) of %s does not answer at %s", api.ErrUnavailable, pid, ws.Root, ws.SocketPath())
	}
	if c.jsonOut {
		return fmt.Errorf("%w: no coordinator running for %s", api.ErrUnavailable, ws.Root)
	}
	fmt.Println(noneRunningLine(ws))
	return nil
}

// noneRunningLine is what a read-only command says with no coordinator
// running: nothing is held in a workspace of its own, but a lease table
// shared on etcd holds what the other clones' owners hold all the same,
// so it must not read as free.
func noneRunningLine(ws *workspace.Workspace) string {
	if cl := ws.Config.Cluster; cl != nil {
		return fmt.Sprintf("no coordinator running here; the lease table is shared on etcd (workspace %q at %s), "+
			"and what other clones' owners hold there is not shown: `leasegate serve`, or any command that starts a coordinator, shows it",
			cl.Workspace, strings.Join(cl.Endpoints, ","))
	}
	if _, err := os.Stat(ws.LedgerPath()); !errors.Is(err, fs.ErrNotExist) {
		return "no coordinator running (nothing is held until one starts; its ledger keeps any check-out leases for then)"
	}
	return "no coordinator running (nothing is held)"
}
