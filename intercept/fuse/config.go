package fuse

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/intercept"
	"github.com/leasegate/leasegate/intercept/spawn"
)

// DefaultKillPoll is how often a held request whose caller was interrupted
// is checked for a pending signal that ends its wait (SIGKILL, or one that
// interrupts a syscall natively). The kernel sends one FUSE interrupt per
// request, on the first signal; a signal that follows one that leaves the
// wait held (SIGWINCH, SIGCHLD) brings no second one, and a killed thread
// waits for the answer in the kernel until it gets one. Shorter means such
// a write is given up sooner; each check reads /proc/TID/status once.
const DefaultKillPoll = 200 * time.Millisecond

// DefaultWatchedTimeout is how long the kernel keeps what it was told of
// a name in a watched directory by default: a second (see
// Config.WatchedTimeout for what that buys and costs).
const DefaultWatchedTimeout = time.Second

// Config describes the worker to run under the gate.
type Config struct {
	// Command is the worker: its argv, environment, streams, whether a
	// reaper is put between it and the supervisor (Reap), the binary
	// re-executed as the helper (Self) and the handshake's timeout.
	spawn.Command
	// Root is the directory the view is mounted over, as an absolute path
	// with its symlinks resolved: the workspace root. Mutations report
	// their paths under it. Required.
	Root string
	// ReadOnly are directories under Root that the worker sees as they
	// are, read-only, instead of through the view: the state directory,
	// whose unix socket a FUSE inode cannot stand for (a connect needs the
	// socket's own inode, and a read-only mount still lets it connect).
	// Each must exist when the worker starts.
	ReadOnly []string
	// Decider answers each mutation. Required.
	Decider intercept.Decider
	// Logger receives the supervisor's logs; nil means
	// hclog.Default().Named("fuse").
	Logger hclog.Logger
	// KillPoll is the interval of the SIGKILL check of an interrupted
	// request. Default DefaultKillPoll (200 ms).
	KillPoll time.Duration
	// EntryTimeout and AttrTimeout are how long the kernel may keep a
	// name's lookup and a file's attributes without asking the server
	// again, whether or not its directory is watched (see WatchedTimeout,
	// which keeps them coherently). Zero (the default) adds nothing to
	// WatchedTimeout: a longer one would show a stale size or a removed
	// name that the watch missed for that long.
	EntryTimeout, AttrTimeout time.Duration
	// WatchedTimeout is how long the kernel may keep a name's lookup and
	// its attributes when they are in a directory the view watches, if
	// EntryTimeout and AttrTimeout are shorter. The view watches every
	// directory the kernel learns of (inotify on the files beneath), and a
	// change made there by any process, through this view or not,
	// invalidates what the kernel keeps of it as soon as the event is read:
	// the kernel then asks again. Without keeping, the kernel asks for
	// every component of every path the worker uses, nine in ten of a
	// clone's requests. What it costs: a change the events miss is seen
	// up to this late (a write through mmap, a change through another
	// hard link of a file, an invalidation made while this view holds a
	// mutation in the same directory for an answer, which waits for that
	// answer). Default DefaultWatchedTimeout (1 s); zero keeps nothing and
	// watches nothing.
	WatchedTimeout time.Duration
	// Watches reports whether the directory at the absolute host path dir
	// is worth a watch. Each watch counts against fs.inotify.max_user_watches,
	// which all of the user's processes share (the coordinator's watcher,
	// every other FUSE worker, editors); a directory not watched is as
	// coherent, its names asked for at each use. The caller knows which
	// directories a worker's tools walk without writing (.git/'s
	// internals, ignored trees such as node_modules/) and leaves them out.
	// Asked when the kernel learns of a directory not watched, again
	// after it forgot one; it must be quick and safe for concurrent use.
	// Nil means every directory.
	Watches func(dir string) bool
	// Unwatched is told, once, the first directory (absolute) whose watch
	// the kernel refused at the user's limit (fs.inotify.max_user_watches:
	// ENOSPC), or the root when the view got no inotify instance
	// (fs.inotify.max_user_instances: EMFILE), with the error: what the
	// kernel learns there is not kept, which is slower, never stale. It is
	// also logged at warning level naming the limit. Nil means it is only
	// logged.
	Unwatched func(dir string, err error)
}

// DefaultConfig returns a Config with every default filled in; the caller
// adds Argv, Root and Decider.
func DefaultConfig() Config {
	return Config{
		Command:        spawn.Command{Self: spawn.DefaultSelf, HandshakeTimeout: spawn.DefaultHandshakeTimeout},
		Logger:         hclog.Default().Named("fuse"),
		KillPoll:       DefaultKillPoll,
		WatchedTimeout: DefaultWatchedTimeout,
	}
}

// Validate reports what is wrong with c, wrapping ErrInvalidConfig.
func (c Config) Validate() error {
	if err := c.Command.Validate(); err != nil {
		return fmt.Errorf("%w: %w", err, ErrInvalidConfig)
	}
	switch {
	case c.Root == "" || !filepath.IsAbs(c.Root) || filepath.Clean(c.Root) != c.Root:
		return fmt.Errorf("root %q not a clean absolute path: %w", c.Root, ErrInvalidConfig)
	case c.Root == "/":
		return fmt.Errorf("root %q: the view cannot be mounted over /: %w", c.Root, ErrInvalidConfig)
	case c.Decider == nil:
		return fmt.Errorf("no decider: %w", ErrInvalidConfig)
	case !underAll(c.Root, c.ReadOnly):
		return fmt.Errorf("read-only directories %q not all clean absolute paths under %s: %w", c.ReadOnly, c.Root, ErrInvalidConfig)
	case c.KillPoll < 0 || c.EntryTimeout < 0 || c.AttrTimeout < 0 || c.WatchedTimeout < 0:
		return fmt.Errorf("negative interval: %w", ErrInvalidConfig)
	}
	return nil
}

// withDefaults returns c with zero fields replaced by their defaults.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	c.Command = c.Command.WithDefaults()
	if c.Logger == nil {
		c.Logger = d.Logger
	}
	if c.KillPoll == 0 {
		c.KillPoll = d.KillPoll
	}
	return c
}

// underAll reports whether every dir is a clean absolute path strictly
// under root.
func underAll(root string, dirs []string) bool {
	for _, d := range dirs {
		if filepath.Clean(d) != d || !strings.HasPrefix(d, root+"/") {
			return false
		}
	}
	return true
}
