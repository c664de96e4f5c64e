// Package watch watches a workspace's files with fsnotify and reports
// changes that no gate saw: a write to a gated path that holds no lease
// (and held none a moment ago) was made by a process that no sidecar or
// hook gates — an editor, an unwrapped agent.
//
// It cannot tell who wrote a file, so a change to a path that is leased
// is taken to be the holder's; it reports, it never blocks. New
// directories are watched and rescanned as they appear (a file created
// right after its directory is otherwise missed).
package watch

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fsnotify/fsnotify"
	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/workspace"
)

// Change is one observed change of a gated path.
type Change struct {
	Path string // workspace-relative
	Op   string // create, write, remove, rename, chmod
}

// Config configures a Watcher.
type Config struct {
	// Workspace is the workspace to watch. Required.
	Workspace *workspace.Workspace
	// Rule classifies paths; only Gated ones are reported. Required.
	Rule *workspace.Rule
	// Report receives each change of a gated path. Required.
	Report func(Change)
	// Logger; nil means no logging.
	Logger hclog.Logger
}

// Run watches until ctx ends.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Workspace == nil || cfg.Rule == nil || cfg.Report == nil {
		return errors.New("watch: workspace, rule and report are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	wt := &watcher{cfg: cfg, w: w, log: cfg.Logger.Named("watch")}
	wt.addTree(cfg.Workspace.Root, false)
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-w.Errors:
			wt.log.Warn("watch error", "error", err)
		case ev := <-w.Events:
			wt.handle(ev)
		}
	}
}

type watcher struct {
	cfg Config
	w   *fsnotify.Watcher
	log hclog.Logger
}

// addTree watches dir and every directory under it that the rule does
// not exclude as a whole; with report, files found are reported as
// created (they appeared with a new directory).
func (wt *watcher) addTree(dir string, report bool) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, inside := wt.cfg.Workspace.Rel(p)
		if !inside {
			return filepath.SkipDir
		}
		if d.IsDir() {
			if rel != "." && wt.cfg.Rule.ClassifyTree(rel) != workspace.Gated {
				return filepath.SkipDir
			}
			if err := wt.w.Add(p); err != nil {
				wt.log.Debug("cannot watch", "dir", p, "error", err)
			}
			return nil
		}
		if report && wt.cfg.Rule.Classify(rel) == workspace.Gated {
			wt.cfg.Report(Change{Path: rel, Op: "create"})
		}
		return nil
	})
}

func (wt *watcher) handle(ev fsnotify.Event) {
	rel, inside := wt.cfg.Workspace.Rel(ev.Name)
	if !inside || rel == "." {
		return
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			if wt.cfg.Rule.ClassifyTree(rel) == workspace.Gated {
				wt.addTree(ev.Name, true)
			}
			return
		}
	}
	if wt.cfg.Rule.Classify(rel) != workspace.Gated {
		return
	}
	wt.cfg.Report(Change{Path: rel, Op: opName(ev.Op)})
}

func opName(op fsnotify.Op) string {
	switch {
	case op.Has(fsnotify.Create):
		return "create"
	case op.Has(fsnotify.Write):
		return "write"
	case op.Has(fsnotify.Remove):
		return "remove"
	case op.Has(fsnotify.Rename):
		return "rename"
	}
	return "chmod"
}
