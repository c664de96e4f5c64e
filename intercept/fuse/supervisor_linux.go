//go:build amd64 || arm64

package fuse

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept"
	"github.com/leasegate/leasegate/intercept/procfs"
	"github.com/leasegate/leasegate/intercept/spawn"
	"github.com/leasegate/leasegate/internal/envname"
)

// Supervisor runs one worker under the gate and serves its view.
//
// It serves until the view is gone: the kernel unmounts it when the last
// process of the worker's mount namespace has ended. Close stops
// answering: held requests are refused and every later mutation is
// refused with EACCES (the gate fails closed), while reads are still
// served until the namespace ends.
type Supervisor struct {
	*spawn.Process // the worker: Pid, KillTree, Wait, Exited
	cfg            Config
	log            hclog.Logger
	asker          *asker
	server         *fuse.Server
	cancel         context.CancelFunc
	done           chan struct{} // closed when the server's loop has ended
}

// Available reports whether this machine can open /dev/fuse, without
// starting anything: nil, or an error wrapping ErrNoFuse. Whether the
// mount is allowed is only known when the helper tries it (Start then
// returns ErrMountRefused).
func Available() error {
	fd, err := unix.Open("/dev/fuse", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open /dev/fuse: %v: %w", err, ErrNoFuse)
	}
	unix.Close(fd)
	return nil
}

// Start runs cfg.Argv under the gate: it re-executes cfg.Self as the
// helper, which mounts the view over cfg.Root in a mount namespace of its
// own and hands over the fd; Start serves it, and lets the helper exec the
// worker. The worker leads its own process group.
//
// Ending ctx stops answering (like Close); it does not kill the worker.
func Start(ctx context.Context, cfg Config) (*Supervisor, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if err := Available(); err != nil {
		return nil, err
	}
	cmd := cfg.Command
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	readOnly, err := json.Marshal(cfg.ReadOnly)
	if err != nil {
		return nil, err
	}
	cmd.Env = append(env[:len(env):len(env)], envname.FuseRoot+"="+cfg.Root, envname.FuseReadOnly+"="+string(readOnly))
	s, err := spawn.Launch(ctx, gate, cmd, func(proc *spawn.Process, fd int) (*Supervisor, error) {
		return serve(ctx, cfg, proc, fd)
	})
	if err != nil {
		return nil, err
	}
	s.log.Debug("worker gated", "pid", s.Pid(), "root", cfg.Root, "argv", cfg.Argv)
	return s, nil
}

// serve starts serving the view on fd.
func serve(ctx context.Context, cfg Config, proc *spawn.Process, fd int) (*Supervisor, error) {
	ctx, cancel := context.WithCancel(ctx)
	a := &asker{root: cfg.Root, decider: cfg.Decider, killPoll: cfg.KillPoll, ctx: ctx, ids: newIDs()}
	if st, err := procfs.ReadStatus(os.Getpid()); err == nil {
		a.umask = st.Umask
	}
	a.instant, _ = cfg.Decider.(intercept.InstantDecider)
	root, err := newRoot(cfg.Root, a)
	if err != nil {
		cancel()
		unix.Close(fd)
		return nil, err
	}
	if cfg.WatchedTimeout > 0 {
		a.watcher = watchView(root, cfg)
	}
	if a.watcher != nil {
		a.keepEntry, a.keepAttr = max(cfg.WatchedTimeout, cfg.EntryTimeout), max(cfg.WatchedTimeout, cfg.AttrTimeout)
	}
	entry, attr, missing := cfg.EntryTimeout, cfg.AttrTimeout, max(cfg.EntryTimeout, a.keepEntry)
	opts := &fs.Options{EntryTimeout: &entry, AttrTimeout: &attr, NegativeTimeout: &missing}
	opts.FsName, opts.Name = "leasegate", "leasegate"
	opts.AllowOther = true
	// The magic mount point: serve the fd the helper mounted, which the
	// server's process cannot see at any path.
	server, err := fuse.NewServer(fs.NewNodeFS(root, opts), "/dev/fd/"+strconv.Itoa(fd), &opts.MountOptions)
	if err != nil {
		cancel()
		unix.Close(fd)
		closeWatcher(a.watcher)
		return nil, fmt.Errorf("serve the FUSE view: %w", err)
	}
	s := &Supervisor{Process: proc, cfg: cfg, log: cfg.Logger, asker: a, server: server, cancel: cancel, done: make(chan struct{})}
	go s.serveView()
	return s, nil
}

// serveView serves the view, and watches it while it does, until the
// view is gone.
func (s *Supervisor) serveView() {
	defer close(s.done)
	w := s.asker.watcher
	if w == nil {
		s.server.Serve()
		return
	}
	watching := make(chan struct{})
	go func() {
		defer close(watching)
		w.run()
	}()
	s.server.Serve()
	_ = w.Close()
	<-watching
}

// watchView starts watching the view's root for Config.WatchedTimeout.
// Without a watch (no inotify instance left to the user, the root not
// watchable) nothing is kept, which is slower, not less coherent: it is
// logged and told to Config.Unwatched, not refused.
func watchView(root *Node, cfg Config) *watcher {
	unwatched := func(dir string, err error) {
		if cfg.Unwatched != nil {
			cfg.Unwatched(dir, err)
		}
	}
	limited := func(dir string, err error) {
		cfg.Logger.Warn("names and attributes not kept under a directory whose watch the kernel refused, nor under those refused after it: asked for at each use (slower, never stale)",
			"dir", dir, "error", err, "hint", watchLimit)
		unwatched(dir, err)
	}
	w, err := newWatcher(cfg.Watches, limited)
	if err != nil {
		cfg.Logger.Warn("names and attributes not kept: the workspace cannot be watched", "root", cfg.Root, "error", err)
		unwatched(cfg.Root, err)
		return nil
	}
	if err := w.watchRoot(root, cfg.Root); err != nil {
		cfg.Logger.Warn("names and attributes of the root not kept: it cannot be watched", "root", cfg.Root, "error", err)
		w.refused(cfg.Root, err)
	}
	return w
}

// watchLimit names the limits a refused watch meets, and the way out.
const watchLimit = "each watched directory takes one of fs.inotify.max_user_watches, shared by all of this user's processes " +
	"(each FUSE worker watches the gated directories it looks up; the coordinator every gated one), and each view an inotify instance " +
	"(fs.inotify.max_user_instances): raise it with sysctl, e.g. sysctl fs.inotify.max_user_watches=524288"

// closeWatcher closes w, if there is one.
func closeWatcher(w *watcher) {
	if w != nil {
		_ = w.Close()
	}
}

// Done is closed when the view is gone: every process of the worker's
// mount namespace has ended, and the kernel unmounted it.
func (s *Supervisor) Done() <-chan struct{} { return s.done }

// closeWait bounds how long Close waits for the view to go once the
// worker has exited: the kernel unmounts it when the namespace's last
// process is reaped, which takes moments.
const closeWait = 5 * time.Second

// Close stops answering: pending Decide calls see their context
// cancelled and every later mutation is refused with EACCES; it returns
// once every Decide call has returned and, if the worker has exited, the
// view is gone (or closeWait has passed). It does not kill or wait for the
// worker. Close is idempotent.
func (s *Supervisor) Close() error {
	s.asker.close(s.cancel)
	select {
	case <-s.Exited():
	default:
		return nil
	}
	t := time.NewTimer(closeWait)
	defer t.Stop()
	select {
	case <-s.done:
	case <-t.C:
	}
	return nil
}
