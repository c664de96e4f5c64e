// Package watch watches a workspace's files with fsnotify and reports
// changes that no gate saw: a write to a gated path that holds no lease
// (and held none a moment ago) was made by a process that no sidecar or
// hook gates — an editor, an unwrapped agent.
//
// It cannot tell who wrote a file, so a change to a path that a gate
// leased to its writer (Config.Covered) is taken to be the holder's; it
// reports, it never blocks. Events are
// handled in batches: after the first event of a batch the watcher lets
// more gather for a short window, then takes all of them, so a tool that
// writes thousands of files wakes it some fifty times a second at most,
// and each path is judged once per batch however many events it had. New
// directories are watched and rescanned as they appear (a file created
// right after its directory is otherwise missed), except one that a lease
// takes whole: all its changes would be taken for the holder's, so it is
// watched only once no lease covers it any more.
package watch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/fsnotify/fsnotify"
	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/workspace"
)

// DefaultWindow is how long events gather after the first one of a batch.
// A longer window means fewer wake-ups and fewer repeats of one path while
// a tool writes thousands of files (during a 5,000-file git clone the
// coordinator spent about half the CPU with 5 ms, a quarter to a third with
// 20 ms, of what it spent handling each event on arrival), and reports come
// that much later; they are advisory, nothing waits for them. The kernel
// queues the window's events meanwhile: fs.inotify.max_queued_events
// (16,384 by default) in 20 ms is far more than a clone writes.
const DefaultWindow = 20 * time.Millisecond

// DefaultRecheck is how often the directories left unwatched because a
// lease covered them whole are checked again. A change in one is not
// reported for a while after its lease ends anyway (the coordinator takes
// it for the late write of the holder), so a second costs no report. It
// is also how long a new name must last before it is judged (one to two
// periods): long enough for a slow writer to rename a temporary file onto
// the file it replaces, and short beside the coordinator's 5 s grace for a
// holder's late writes.
const DefaultRecheck = time.Second

// maxBatch bounds the events of one batch, so a flood is handled in slices
// of bounded memory.
const maxBatch = 4096

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
	// Report receives the changes of gated paths seen in one batch, each
	// path once, in the order their first events came. Required.
	Report func([]Change)
	// Covered reports whether a lease covers the workspace-relative path.
	// A covered path is taken to be its holder's and is neither classified
	// nor reported, which spares a question to git for each file a gated
	// worker writes. Nil means no path is covered.
	Covered func(rel string) bool
	// CoveredTree reports whether a lease covers the workspace-relative
	// directory and everything beneath it. Such a directory is not
	// watched while it is covered, which spares the kernel an event and
	// the watcher a wake-up for each file a gated worker writes into a
	// directory it leased whole (a clone, a build output it made); it is
	// watched, without reporting what it already holds, once no lease
	// covers it. Nil means no directory is.
	CoveredTree func(rel string) bool
	// Recheck is how often the directories left unwatched for CoveredTree
	// are checked again, and the period a new name must last before it is
	// judged. Zero means DefaultRecheck.
	Recheck time.Duration
	// Window is how long events gather after the first one of a batch.
	// Zero means DefaultWindow; negative means no wait (a batch is what has
	// already arrived).
	Window time.Duration
	// Lost is told when the kernel dropped events because its queue
	// overflowed: a change made meanwhile may have gone unreported. By then
	// the whole tree has been walked again for directories to watch. Nil
	// means no one is told.
	Lost func()
	// Unwatched is told, once, the first directory (workspace-relative)
	// that could not be watched: writes there, and in the directories
	// left unwatched after it, go unseen. Nil means no one is told.
	Unwatched func(rel string)
	// Budget is how many descriptors the watcher may hold where each
	// watched file holds one (kqueue: macOS, the BSDs), or how many
	// directory watches elsewhere. A directory that would take the
	// watcher past it is left unwatched, and that is said (once, at
	// warning level). Zero means DefaultBudget(): half the open-files
	// limit with kqueue, so the coordinator keeps descriptors for its
	// ledger and connections; no limit elsewhere. Negative means no limit.
	Budget int
	// Clock times the window; nil means the real clock.
	Clock clock.Clock
	// Logger; nil means no logging.
	Logger hclog.Logger
}

// Run watches until ctx ends.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Workspace == nil || cfg.Rule == nil || cfg.Report == nil {
		return errors.New("watch: workspace, rule and report are required")
	}
	cfg.setDefaults()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		// Nothing is watched at all: said like a directory left unwatched,
		// for the root, so that status says so and not only the log.
		if cfg.Unwatched != nil {
			cfg.Unwatched(".")
		}
		return fmt.Errorf("the workspace cannot be watched, ungated writes in it go unseen: %w (%s)", err, startLimit)
	}
	defer w.Close()
	wt := &watcher{cfg: cfg, w: w, log: cfg.Logger.Named("watch"), batch: newBatch(), unwatched: make(map[string]bool),
		gone: make(map[string]bool), fresh: make(map[string]newName), aging: make(map[string]newName)}
	wt.addTree(cfg.Workspace.Root, false)
	recheck := cfg.Clock.Ticker(cfg.Recheck)
	defer recheck.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-recheck.C:
			wt.recheck()
			wt.judgeAged()
		case err := <-w.Errors:
			wt.lose(err)
		case ev := <-w.Events:
			if !wt.gather(ctx, ev) {
				return nil
			}
			wt.flush()
		}
	}
}

func (c *Config) setDefaults() {
	if c.Logger == nil {
		c.Logger = hclog.NewNullLogger()
	}
	if c.Clock == nil {
		c.Clock = clock.New()
	}
	if c.Window == 0 {
		c.Window = DefaultWindow
	}
	if c.Covered == nil {
		c.Covered = func(string) bool { return false }
	}
	if c.CoveredTree == nil {
		c.CoveredTree = func(string) bool { return false }
	}
	if c.Recheck <= 0 {
		c.Recheck = DefaultRecheck
	}
	if c.Budget == 0 {
		c.Budget = DefaultBudget()
	}
}

type watcher struct {
	cfg   Config
	w     *fsnotify.Watcher
	log   hclog.Logger
	batch *batch
	// unwatched holds the directories (absolute) left unwatched because
	// a lease covered them whole.
	unwatched map[string]bool
	// gone holds the names (absolute) passed over as made and gone
	// before their batch was judged, whose rename or removal is still to
	// come in a later batch: that event is theirs too, not a change.
	gone map[string]bool
	// fresh holds the new names (absolute) seen since the last recheck
	// and still there when their batch was judged, with the operations
	// seen on them; aging holds those of the period before. A new name is
	// judged once it has lasted a whole recheck period, so a temporary
	// file renamed onto the file it replaces within that time is never
	// reported, however long its writer took between the two.
	fresh, aging map[string]newName
	// named counts the new names seen, to judge them in that order.
	named uint64
	// blind is set once a directory could not be watched; the warning
	// is said once.
	blind bool
	// held is what the watches made so far cost against Config.Budget
	// (watchCost each); it is not given back when a directory goes, so
	// it errs on the side of the limit.
	held int
}
