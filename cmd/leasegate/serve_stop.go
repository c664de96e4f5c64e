package main

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/unixsock"
	"github.com/leasegate/leasegate/workspace"
)

// stopWait bounds how long `serve --stop` waits for the coordinator to end.
const stopWait = 15 * time.Second

// stopServe stops the workspace's coordinator with SIGTERM and waits until
// it has let go of the workspace. It is an operator's act: refused (exit
// 3) to a process the coordinator places inside a worker or agent tree,
// and while owners hold leases unless force; the leases stay in the
// ledger either way, for the next coordinator.
func (c *common) stopServe(ctx context.Context, ws *workspace.Workspace, force bool) error {
	if err := ws.CheckStateOwner(); err != nil {
		return fmt.Errorf("%w: %w", api.ErrUnavailable, err)
	}
	cl, err := api.NewClient(api.ClientConfig{Socket: ws.SocketPath(), RetryMax: 1})
	if err != nil {
		return err
	}
	defer cl.Close()
	h, err := cl.Health(ctx)
	if err != nil {
		if pid, serving := ws.Serving(); serving {
			return fmt.Errorf("%w: the coordinator (pid %d) holds %s but does not answer: %v", api.ErrUnavailable, pid, ws.Root, err)
		}
		return c.saidStopped(serveStopped{Workspace: ws.Root})
	}
	if who, err := cl.Whoami(ctx); err == nil && !who.Operator {
		as := "owner " + strings.Join(who.Owners, ", ")
		if len(who.Owners) == 0 {
			as = "no one the coordinator can identify (" + who.Unidentified + ")"
		}
		msg := "stopping the coordinator is an operator's act, and this process runs as " + as
		if pid := coordinatorPID(ctx, ws, h); len(who.Owners) == 0 && pid > 0 && pid != h.PID {
			// The coordinator runs in a pid namespace below this one (a
			// worker's or container's), where an operator can stop it.
			msg += fmt.Sprintf("; an operator stops it from inside that namespace: %s --wdns=%s leasegate serve --stop",
				coordinator.NSEnter(strconv.Itoa(pid), ownUserNS(pid)), ws.Root)
		}
		return &gate.DeniedError{Reason: gate.ReasonAdminRequired, Message: msg}
	}
	s, err := cl.Status(ctx)
	if err != nil {
		return err
	}
	if len(s.Leases) > 0 && !force {
		return &gate.DeniedError{Reason: gate.ReasonHeldByOther, Message: fmt.Sprintf(
			"not stopping the coordinator: %s; they stay valid, but writes wait until a coordinator runs again; stop anyway with --force", heldBy(s.Leases))}
	}
	pid := coordinatorPID(ctx, ws, h)
	if pid == 0 {
		return errCoordinatorUnseen(h.PID)
	}
	if err := stopCoordinator(pid); err != nil {
		return fmt.Errorf("stop the coordinator (pid %d): %w", pid, err)
	}
	if err := c.waitStopped(ctx, ws); err != nil {
		return fmt.Errorf("the coordinator (pid %d) was sent SIGTERM but %w", pid, err)
	}
	return c.saidStopped(serveStopped{Stopped: true, PID: pid, Workspace: ws.Root})
}

// serveStopped is what `serve --stop` did: stopped the coordinator of pid,
// or found none running.
type serveStopped struct {
	Stopped   bool   `json:"stopped"`
	PID       int    `json:"pid,omitempty"`
	Workspace string `json:"workspace"`
}

// saidStopped prints what `serve --stop` did, as JSON under --json.
func (c *common) saidStopped(s serveStopped) error {
	switch {
	case c.jsonOut:
		return printJSON(s)
	case s.Stopped:
		fmt.Printf("coordinator (pid %d) of %s stopped\n", s.PID, s.Workspace)
	default:
		fmt.Printf("no coordinator running for %s\n", s.Workspace)
	}
	return nil
}

// heldBy says who holds how many leases.
func heldBy(ls []gate.Lease) string {
	n := map[string]int{}
	for _, l := range ls {
		n[l.Owner.Name]++
	}
	names := make([]string, 0, len(n))
	for name := range n {
		names = append(names, name)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s holds %d", name, n[name])
	}
	return fmt.Sprintf("%d lease(s) are held (%s)", len(ls), strings.Join(parts, ", "))
}

// coordinatorPID is the coordinator's pid as this process sees it, from
// the socket (SO_PEERCRED). It is 0 when the kernel gives none: the
// coordinator runs in a pid namespace this process cannot see into (the
// host's, seen from a container), where the pid it reports may name
// another process here. Where the system tells no peer's pid, it is the
// pid the coordinator reports.
func coordinatorPID(ctx context.Context, ws *workspace.Workspace, h api.Health) int {
	c, err := unixsock.Dial(ctx, ws.SocketPath())
	if err != nil {
		return h.PID
	}
	defer c.Close()
	pid, err := unixsock.PeerPID(c)
	if err != nil {
		return h.PID
	}
	return pid
}

// errCoordinatorUnseen says that the coordinator, pid in its own pid
// namespace, cannot be signalled from this one, and where it can be.
func errCoordinatorUnseen(pid int) error {
	return fmt.Errorf("the coordinator (pid %d in its pid namespace) runs in a pid namespace this process cannot see into, so it cannot be stopped from here (pid %d here may be another process): run `leasegate serve --stop` in the coordinator's pid namespace (on the host, or through nsenter)", pid, pid)
}
