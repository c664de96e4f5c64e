package main

import (
	"context"
	"fmt"
	"time"

	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/workspace"
)

// coordinatorTimeout bounds doctor's question to a running coordinator:
// the probe, then its status.
const coordinatorTimeout = 10 * time.Second

// coordinatorCheck is what a coordinator running for the workspace says
// of its ledger: a degraded ledger (a full disk), a write too large for
// the journal's room, or a shared ledger without its etcd session, when
// agents' writes are refused or held whatever their hooks do.
type coordinatorCheck struct {
	// Running: a coordinator answered for the workspace. Doctor starts
	// none, so without one there is nothing more to say.
	Running bool `json:"running"`
	// OK: it answered and its ledger is healthy, or none runs.
	OK bool `json:"ok"`
	// Warning is its status's ledger_warning, with its cause.
	Warning string `json:"warning,omitempty"`
	// Error is why it could not be asked: it holds the workspace but does
	// not answer, or serves another ledger than the workspace names.
	Error string `json:"error,omitempty"`
	// Connections says that its open-files limit holds it to fewer
	// connections than api.MaxConns (the ones over it are closed at
	// once); empty otherwise. It does not fail doctor: writes are gated.
	Connections string `json:"connections,omitempty"`
	// WentBack says that the shared ledger went back while the coordinator
	// served it, and which leases were lost (status's ledger_went_back);
	// empty otherwise. It does not fail doctor: the ledger is served as
	// etcd holds it, and there is nothing left to repair.
	WentBack string `json:"went_back,omitempty"`
	// WatchLimit says that its watcher or a FUSE worker's view met the
	// user's inotify limit (status lists the directory), naming the sysctl
	// and its value; empty otherwise. It does not fail doctor: writes are
	// gated, and a view past the limit is slower, never stale.
	WatchLimit string `json:"watch_limit,omitempty"`
}

// checkCoordinator asks the coordinator running for ws, if any, whether
// its ledger is healthy. It starts none.
func (c *common) checkCoordinator(ctx context.Context, ws *workspace.Workspace) coordinatorCheck {
	ctx, cancel := context.WithTimeout(ctx, coordinatorTimeout)
	defer cancel()
	cl, err := c.dial(ctx, ws, dialConfig{Health: true})
	if isNoCoordinator(err) {
		if pid, serving := ws.Serving(); serving {
			return coordinatorCheck{Running: true, Error: fmt.Sprintf("pid %d holds the workspace but does not answer (paused, or still replaying its ledger): %v", pid, err)}
		}
		return coordinatorCheck{OK: true}
	}
	if err != nil {
		return coordinatorCheck{Running: true, Error: err.Error()}
	}
	defer cl.Close()
	s, err := cl.Status(ctx)
	if err != nil {
		return coordinatorCheck{Running: true, Error: fmt.Sprintf("its status: %v", err)}
	}
	k := coordinatorCheck{Running: true, OK: s.LedgerWarning == "", Warning: s.LedgerWarning, WatchLimit: watchLimitNote(s)}
	if s.WentBack != nil {
		k.WentBack = s.WentBack.Summary()
	}
	if h, err := cl.Health(ctx); err == nil && h.MaxConns > 0 && h.MaxConns < api.MaxConns {
		k.Connections = fmt.Sprintf("it holds at most %d connections at once, not %d: its open-files limit is %d; "+
			"raise it (ulimit -n, or the container's nofile) where the coordinator starts, then `leasegate serve --stop`", h.MaxConns, api.MaxConns, h.FilesLimit)
	}
	return k
}

// printCoordinatorCheck prints doctor's coordinator line.
func printCoordinatorCheck(k coordinatorCheck) {
	switch {
	case !k.Running:
		fmt.Println("coordinator: not running (doctor starts none; the first gated write does)")
	case k.Error != "":
		fmt.Printf("coordinator: cannot tell its ledger's health: %s\n", k.Error)
	case k.Warning != "":
		fmt.Printf("coordinator: WARNING: %s\n", k.Warning)
	default:
		fmt.Println("coordinator: ok: running, its ledger healthy")
	}
	if k.Connections != "" {
		fmt.Printf("coordinator: note: %s\n", k.Connections)
	}
	if k.WentBack != "" {
		fmt.Printf("coordinator: WARNING: %s\n", k.WentBack)
	}
	if k.WatchLimit != "" {
		fmt.Printf("coordinator: note: %s\n", k.WatchLimit)
	}
}
