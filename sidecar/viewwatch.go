package sidecar

import (
	"context"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/workspace"
)

// viewWatches reports whether the FUSE view should watch the directory
// dir: the root and the gated tree only. A watch only lets the kernel keep
// what it learnt of a directory's names; one not watched is as coherent,
// its names asked for at each use. .git/'s internals (a directory each of
// .git/objects' 256) and ignored trees (node_modules/, build outputs) are
// walked by git and builds, and a watch each there, in every FUSE worker,
// spent the user's fs.inotify.max_user_watches, which the coordinator's
// watcher and the user's editors share.
func (s *Sidecar) viewWatches(dir string) bool {
	switch s.rule.ClassifyPath(dir, workspace.ReachDir).Class {
	case workspace.Gated, workspace.Root:
		return true
	}
	return false
}

// viewUnwatched hands the directory whose watch the kernel refused at its
// limit to reportUnwatched; it is called once, from a request of the view,
// which must not wait for the coordinator.
func (s *Sidecar) viewUnwatched(dir string, _ error) {
	select {
	case s.unwatched <- dir:
	default:
	}
}

// reportUnwatched records, as status shows it, that this worker's view
// met the user's limit of inotify watches at a directory, until ctx ends.
// Nothing goes unseen: the view's names there are asked for at each use.
func (s *Sidecar) reportUnwatched(ctx context.Context) {
	select {
	case <-ctx.Done():
	case dir := <-s.unwatched:
		rel, ok := s.cfg.Workspace.Rel(dir)
		if !ok {
			return
		}
		w := leasegate.UngatedWrite{Path: rel, Op: leasegate.OpViewUnwatched, Reporter: s.cfg.Name}
		if err := s.cfg.Client.ReportUngated(ctx, w); err != nil {
			s.log.Warn("the view's watch limit not recorded", "dir", dir, "error", err)
		}
	}
}
