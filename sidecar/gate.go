package sidecar

import (
	"context"
	"os"

	"github.com/leasegate/leasegate/intercept/fuse"
	"github.com/leasegate/leasegate/intercept/seccomp"
	"github.com/leasegate/leasegate/intercept/spawn"
)

// supervisor is what the sidecar uses of a gate's running worker; both
// seccomp's and fuse's Supervisor have it.
type supervisor interface {
	Pid() int
	KillTree()
	Wait() (*os.ProcessState, error)
	Exited() <-chan struct{}
	Done() <-chan struct{}
	Close() error
}

var (
	_ supervisor = (*seccomp.Supervisor)(nil)
	_ supervisor = (*fuse.Supervisor)(nil)
)

// startGate starts the worker cmd under the configured gate, with the
// sidecar deciding its mutations.
func (s *Sidecar) startGate(ctx context.Context, cmd spawn.Command) (supervisor, error) {
	if s.cfg.Gate == GateFuse {
		fc := fuse.DefaultConfig()
		fc.Command, fc.Root, fc.Decider, fc.Logger = cmd, s.cfg.Workspace.Root, s, s.cfg.Logger
		fc.ReadOnly = s.shownAsIs()
		fc.EntryTimeout, fc.AttrTimeout = s.cfg.FuseCache, s.cfg.FuseCache
		fc.Watches, fc.Unwatched = s.viewWatches, s.viewUnwatched
		sup, err := fuse.Start(ctx, fc)
		if err != nil {
			return nil, err
		}
		return sup, nil
	}
	sc := seccomp.DefaultConfig()
	sc.Command, sc.Decider, sc.Logger = cmd, s, s.cfg.Logger
	sup, err := seccomp.Start(ctx, sc)
	if err != nil {
		return nil, err
	}
	return sup, nil
}

// shownAsIs are the directories the FUSE view leaves as they are beneath
// it, read-only: the state directory when it lies in the workspace, where
// the worker's hooks reach the coordinator's socket (a connect needs the
// socket's own inode) and which workers may never write anyway.
func (s *Sidecar) shownAsIs() []string {
	ws := s.cfg.Workspace
	if rel, ok := ws.Rel(ws.StateDir); ok && rel != "." {
		return []string{ws.StateDir}
	}
	return nil
}
