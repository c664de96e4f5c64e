package watch

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/fsnotify/fsnotify"

	"github.com/leasegate/leasegate/workspace"
)

// flush judges each path of the batch once, watches the new directories
// among them, reports the gated changes and empties the batch.
func (wt *watcher) flush() {
	wt.followIgnoreChanges()
	j := &judgement{seen: make(map[string]bool, len(wt.batch.order))}
	for _, abs := range wt.batch.order {
		wt.judgeEvent(j, abs, wt.batch.ops[abs])
	}
	wt.log.Trace("batch", "events", wt.batch.events, "paths", len(wt.batch.order), "reported", len(j.changes))
	wt.batch.reset()
	if len(j.changes) > 0 {
		wt.cfg.Report(j.changes)
	}
}

// followIgnoreChanges makes the rule forget its verdicts when the batch
// changed a file that decides what git ignores (a .gitignore): git's
// check-ignore process reads those files once, so a file they now ignore
// would be reported as an ungated write, and one they no longer ignore
// would go unreported. The directory of each changed .gitignore is then
// walked again for directories to watch: one it no longer ignores was
// left unwatched (what it holds is not reported, as at start).
//
// A write of leasegate.json is followed the same way: the rule takes what
// the file now says is gated (Rule.Follow), and the whole tree is walked
// again when that changed.
func (wt *watcher) followIgnoreChanges() {
	var dirs []string
	config := filepath.Join(wt.cfg.Workspace.Root, workspace.ConfigFile)
	for _, abs := range wt.batch.order {
		switch {
		case wt.cfg.Workspace.AffectsIgnore(abs):
			dirs = append(dirs, filepath.Dir(abs))
		case abs == config:
			if changed, _ := wt.cfg.Rule.Follow(); changed {
				dirs = append(dirs, wt.cfg.Workspace.Root)
			}
		}
	}
	if len(dirs) == 0 {
		return
	}
	wt.cfg.Rule.Invalidate()
	for _, dir := range dirs {
		wt.addTree(dir, false)
	}
}

// judgement collects the changes of one batch; seen holds the paths
// already judged.
type judgement struct {
	changes []Change
	seen    map[string]bool
}

// judgeEvent judges the path abs that had the operations op: a new
// directory is watched with its subtree, a name made and gone before the
// batch is judged is passed over, anything else judged as a file.
//
// A name that came and went changed nothing in the tree. It is most often
// a temporary file renamed onto the file it replaces (how Claude Code's
// Write, editors and sed -i save), and that file is judged under its own
// name: reporting the temporary name too would report every such save of
// a leased file, granted by its gate, as an ungated write. Its rename or
// removal may come in the next batch, and is passed over there.
func (wt *watcher) judgeEvent(j *judgement, abs string, op fsnotify.Op) {
	rel, inside := wt.cfg.Workspace.Rel(abs)
	if !inside || rel == "." {
		return
	}
	if wt.gone[abs] {
		delete(wt.gone, abs)
		if !op.Has(fsnotify.Create) {
			return
		}
	}
	if wt.deferred(abs, op) {
		return
	}
	if op.Has(fsnotify.Create) {
		fi, err := os.Lstat(abs)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if !op.Has(fsnotify.Rename) && !op.Has(fsnotify.Remove) {
				wt.gone[abs] = true
			}
			return
		case err == nil && fi.IsDir():
			if wt.cfg.Rule.ClassifyTree(rel) == workspace.Gated {
				wt.addTree(abs, true)
			}
			return
		case err == nil:
			wt.deferName(abs, op)
			return
		}
	}
	wt.judgePath(j, rel, op)
}

// newName is a new name waiting to be judged: the operations seen on it,
// and its place among the new names seen.
type newName struct {
	op  fsnotify.Op
	seq uint64
}

// deferName makes abs a new name waiting to be judged, with op seen on
// it.
func (wt *watcher) deferName(abs string, op fsnotify.Op) {
	wt.named++
	wt.fresh[abs] = newName{op: op, seq: wt.named}
}

// deferred adds op to the new name abs when it waits to be judged, and
// reports whether it does.
func (wt *watcher) deferred(abs string, op fsnotify.Op) bool {
	for _, m := range []map[string]newName{wt.fresh, wt.aging} {
		if n, ok := m[abs]; ok {
			n.op |= op
			m[abs] = n
			return true
		}
	}
	return false
}

// judgeAged judges the new names that have lasted a whole recheck period
// (those of the period before this one) and starts the next period. A
// name gone by now came and went: it is passed over, and so is its rename
// or removal still to come.
func (wt *watcher) judgeAged() {
	j := &judgement{seen: make(map[string]bool, len(wt.aging))}
	names := slices.SortedFunc(maps.Keys(wt.aging), func(a, b string) int { return cmp.Compare(wt.aging[a].seq, wt.aging[b].seq) })
	for _, abs := range names {
		op := wt.aging[abs].op
		rel, inside := wt.cfg.Workspace.Rel(abs)
		if _, err := os.Lstat(abs); errors.Is(err, fs.ErrNotExist) {
			if !op.Has(fsnotify.Rename) && !op.Has(fsnotify.Remove) {
				wt.gone[abs] = true
			}
			continue
		}
		if inside {
			wt.judgePath(j, rel, op)
		}
	}
	clear(wt.aging)
	wt.aging, wt.fresh = wt.fresh, wt.aging
	if len(j.changes) > 0 {
		wt.cfg.Report(j.changes)
	}
}

// judgePath adds the change of rel unless it was judged already in this
// batch, a lease covers it, or it is not gated.
func (wt *watcher) judgePath(j *judgement, rel string, op fsnotify.Op) {
	if j.seen[rel] {
		return
	}
	j.seen[rel] = true
	if wt.cfg.Covered(rel) || wt.cfg.Rule.Classify(rel) != workspace.Gated {
		return
	}
	j.changes = append(j.changes, Change{Path: rel, Op: opName(op)})
}

// addTree watches dir and every directory under it that the rule does not
// exclude as a whole and no lease covers whole: one watch per directory,
// one read of each. With created, the files found are new names (they
// appeared with a new directory, perhaps before its watch), judged once
// they have lasted a recheck period as those seen created are.
func (wt *watcher) addTree(dir string, created bool) {
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
			if rel != "." && wt.cfg.CoveredTree(rel) {
				wt.unwatched[p] = true
				return filepath.SkipDir
			}
			if !wt.afford(p) {
				wt.cannotWatch(p, fmt.Errorf("%w (%d)", errBudget, wt.cfg.Budget))
				return filepath.SkipDir
			}
			if err := wt.w.Add(p); err != nil {
				wt.cannotWatch(p, err)
			}
			return nil
		}
		if created && !wt.deferred(p, fsnotify.Create) {
			wt.deferName(p, fsnotify.Create)
		}
		return nil
	})
}

// cannotWatch says, once at warning level and to cfg.Unwatched and then
// at debug level, that dir is not watched: ungated writes there go
// unseen. A large workspace meets the platform's limit here (watchLimit).
func (wt *watcher) cannotWatch(dir string, err error) {
	if wt.blind {
		wt.log.Debug("cannot watch", "dir", dir, "error", err)
		return
	}
	wt.blind = true
	wt.log.Warn("cannot watch a directory: ungated writes in it and in others left unwatched go unseen",
		"dir", dir, "error", err, "hint", watchLimit+": raise it, or run serve --no-watch")
	if rel, ok := wt.cfg.Workspace.Rel(dir); ok && wt.cfg.Unwatched != nil {
		wt.cfg.Unwatched(rel)
	}
}

// errBudget is why a directory is left unwatched past Config.Budget.
var errBudget = errors.New("watching it would pass the watcher's descriptor budget")

// afford reports whether dir can be watched within the budget, and if so
// counts it as held.
func (wt *watcher) afford(dir string) bool {
	if wt.cfg.Budget < 0 {
		return true
	}
	cost := watchCost(dir)
	if wt.held+cost > wt.cfg.Budget {
		return false
	}
	wt.held += cost
	return true
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

// recheck watches the directories left unwatched whose lease has ended,
// without judging what they hold: what was written there while the lease
// covered them was the holder's. A directory that is gone is forgotten.
func (wt *watcher) recheck() {
	for dir := range wt.unwatched {
		rel, inside := wt.cfg.Workspace.Rel(dir)
		fi, err := os.Lstat(dir)
		switch {
		case err != nil || !fi.IsDir() || !inside:
			delete(wt.unwatched, dir)
		case !wt.cfg.CoveredTree(rel):
			delete(wt.unwatched, dir)
			wt.addTree(dir, false)
		}
	}
}

// lose handles an error from the kernel's side. An overflow means events
// were dropped, perhaps the creation of a directory whose files would then
// never be seen: the whole tree is walked again for directories to watch
// (what they hold is not reported, as at start), and cfg.Lost is told.
func (wt *watcher) lose(err error) {
	if !errors.Is(err, fsnotify.ErrEventOverflow) {
		wt.log.Warn("watch error", "error", err)
		return
	}
	wt.log.Warn("the kernel dropped watch events (queue overflow); watching the workspace again", "error", err)
	clear(wt.gone) // their renames or removals may be among the events dropped
	wt.addTree(wt.cfg.Workspace.Root, false)
	if wt.cfg.Lost != nil {
		wt.cfg.Lost()
	}
}
