package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/internal/envname"
	"github.com/leasegate/leasegate/internal/unixsock"
	"github.com/leasegate/leasegate/liveness"
	"github.com/leasegate/leasegate/notify"
	"github.com/leasegate/leasegate/store"
	"github.com/leasegate/leasegate/watch"
	"github.com/leasegate/leasegate/workspace"
)

// defaultIdleExit is how long a coordinator with no owners, leases or held
// mutations keeps running before it stops itself.
const defaultIdleExit = 10 * time.Minute

// defaultMemoryLimit is the coordinator's soft memory limit: the Go
// runtime collects harder as the heap nears it, which keeps a coordinator
// holding 100,000 leases (about 22 MiB live, 31 MiB while it answers a
// status of them all) under 64 MiB resident with the binary's ~20 MiB of
// pages, instead of letting the heap double before each collection. The
// price is collection CPU with a table that large (filling 100,000 leases
// took 1.2-1.5x as long as under 48 MiB); a small table never nears it.
const defaultMemoryLimit = 40 << 20

type serveFlags struct {
	common
	listen    string
	notifyURL string
	idleExit  time.Duration
	noWatch   bool
	memLimit  string
	readyFD   int
	stop      bool
	force     bool
}

func cmdServe(ctx context.Context, args []string) error {
	var f serveFlags
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	f.register(fs, true)
	fs.Lookup("no-start").Usage = "refused (exit 2): serve is the coordinator it would not start"
	serveWindowsUsage(fs)
	fs.StringVar(&f.listen, "listen", "", "also listen on TCP at this address (e.g. 127.0.0.1:7070); requests need the admin token as bearer token")
	fs.StringVar(&f.notifyURL, "notify-url", os.Getenv(envname.NotifyURL), "POST every owner notice (reminder, eviction, reclaim, blocker) to this URL as JSON")
	fs.BoolVar(&f.noWatch, "no-watch", false, "do not watch the workspace for writes that no gate saw")
	fs.DurationVar(&f.idleExit, "idle-exit", defaultIdleExit, "stop after this long with no owners, leases or held mutations (0 = never)")
	fs.StringVar(&f.memLimit, "memory-limit", "", "soft memory limit of the coordinator, e.g. 48MiB or 1GiB; 0 = none (default: $GOMEMLIMIT if set, else 40MiB)")
	fs.IntVar(&f.readyFD, "ready-fd", 0, "report the start, or why it failed, as one JSON line on this descriptor (set by the command that starts a coordinator)")
	fs.BoolVar(&f.stop, "stop", false, "stop the workspace's coordinator instead (refused while owners hold leases, unless --force)")
	fs.BoolVar(&f.force, "force", false, "with --stop: stop it even while owners hold leases (they stay in the ledger)")
	if err := parseNone("serve", fs, args); err != nil {
		return err
	}
	if f.force && !f.stop {
		return usagef("serve: --force goes with --stop")
	}
	if err := serveTakes(fs, f.stop); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	if f.stop {
		ws, err := f.workspace()
		if err != nil {
			return err
		}
		return f.stopServe(ctx, ws, f.force)
	}
	rep := newReporter(f.readyFD)
	err := startServe(ctx, f, rep)
	var ue *usageError
	if err == nil || rep.served || errors.As(err, &ue) {
		rep.done(err)
		return err
	}
	return rep.failed(&startError{err})
}

// stopFlags are the flags `serve --stop` takes: the ones every command
// takes and --force. The others configure a coordinator that serves.
var stopFlags = map[string]bool{"stop": true, "force": true, "workspace": true, "json": true, "log-level": true, "no-start": true}

// serveTakes refuses a flag given that serve would take and ignore: with
// --stop, one that only a serving coordinator uses (`serve --stop
// --notify-url URL` stopped the coordinator and dropped the URL unsaid);
// without it, --no-start (serve is the coordinator it would not start).
func serveTakes(fs *flag.FlagSet, stop bool) error {
	var err error
	fs.Visit(func(fl *flag.Flag) {
		switch {
		case err != nil:
		case stop && !stopFlags[fl.Name]:
			err = usagef("serve: --%s configures a coordinator that serves; --stop takes only --force", fl.Name)
		case !stop && fl.Name == "no-start":
			err = usagef("serve: --no-start is for the commands that would start a coordinator; serve is the coordinator")
		}
	})
	return err
}

// check refuses flag values serve could only fail on later, or would
// quietly take for something else: a negative --idle-exit (0 is never),
// a --listen address that is not HOST:PORT, a --notify-url notices
// cannot be posted to, a negative --ready-fd.
func (f serveFlags) check() error {
	switch {
	case f.idleExit < 0:
		return usagef("serve: --idle-exit %s: want 0 (never) or a positive duration", f.idleExit)
	case f.readyFD < 0:
		return usagef("serve: --ready-fd %d: want an open descriptor's number", f.readyFD)
	}
	if f.listen != "" {
		if err := checkListenAddr(f.listen); err != nil {
			return usagef("serve: --listen %s: %v", f.listen, err)
		}
	}
	if f.notifyURL != "" {
		if err := notify.CheckURL(f.notifyURL); err != nil {
			return usagef("serve: --notify-url (or $%s): %v", envname.NotifyURL, err)
		}
	}
	return nil
}

// startServe serves the workspace until ctx ends, and tells rep once it
// serves.
func startServe(ctx context.Context, f serveFlags, rep *reporter) error {
	if err := applyMemoryLimit(f.memLimit, os.Getenv("GOMEMLIMIT")); err != nil {
		return usagef("serve: %v", err)
	}
	ws, err := f.workspace()
	if err != nil {
		return err
	}
	if err := f.chosen(ws); err != nil {
		return err
	}
	return serve(ctx, f, ws, rep)
}

func serve(ctx context.Context, f serveFlags, ws *workspace.Workspace, rep *reporter) error {
	log := f.logger("leasegate")
	if err := ws.EnsureStateDir(); err != nil {
		return err
	}
	lock, err := ws.LockServe()
	var serving *workspace.ServingError
	if errors.As(err, &serving) {
		return servingHere(ctx, ws, serving)
	} else if err != nil {
		return err
	}
	defer lock.Close()
	var token string // TCP's credential; the unix socket knows its peers
	if f.listen != "" {
		if token, err = ws.AdminToken(); err != nil {
			return err
		}
	}
	ledger, err := openLedger(ctx, ws, log)
	if err != nil {
		return ledgerHint(err)
	}
	fds := pidfdShare(f.noWatch, log)
	live, err := liveness.New(liveness.Config{TTL: liveness.DefaultTTL, Logger: log, Descriptors: fds})
	if err != nil {
		ledger.Close()
		return err
	}
	pairs, err := ws.Config.PairRules()
	if err != nil {
		ledger.Close()
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	var c *coordinator.Coordinator // set once opened; notices only flow after that
	cfg := coordinator.DefaultConfig()
	cfg.Ledger, cfg.Liveness, cfg.Workspace, cfg.PairRules, cfg.Logger = ledger, live, ws.Root, pairs, log
	cfg.Folding, cfg.Descriptors = ws.Folding(), fds
	cfg.BlockerDir = filepath.Join(ws.StateDir, "blockers")
	cfg.Windows = coordinatorWindows(f.windows)
	if f.notifyURL != "" {
		n, err := notify.New(notify.Config{URL: f.notifyURL, Logger: log, Undelivered: func(x leasegate.Notice, cause error) {
			if c != nil {
				_ = c.RecordUndelivered(ctx, x, cause)
			}
		}})
		if err != nil {
			ledger.Close()
			return err
		}
		cfg.Notify = n.Send
		wg.Add(1)
		go func() { defer wg.Done(); n.Run(ctx) }()
	}
	c, err = coordinator.Open(ctx, cfg)
	if err != nil {
		ledger.Close()
		return ledgerHint(err)
	}
	served := ws.Ledger()
	srv := api.NewServer(c, token, api.Health{Version: versionString(), Workspace: ws.Root, PID: os.Getpid(), Log: logDestination(), Ledger: &served}, log)
	if err := limitConns(srv, f.noWatch); err != nil {
		cancel()
		_ = c.Run(ctx) // closes the ledger
		return err
	}
	anchor, err := ws.Anchor()
	if err != nil {
		cancel()
		_ = c.Run(ctx) // closes the ledger
		return err
	}
	ln, tl, err := listen(ctx, ws.SocketPath(), f.listen)
	if err != nil {
		cancel()
		_ = c.Run(ctx) // closes the ledger
		return err
	}
	log.Info("coordinator serving", "workspace", ws.Root, "socket", ws.SocketPath(), "retry-after", cfg.Windows.Retry, "idle-after", cfg.Windows.Idle)
	if tl != nil {
		// Said whatever the log level: with port 0 this is the only place
		// the port is told.
		fmt.Fprintf(os.Stderr, "leasegate: serving on TCP at %s too: requests there need the admin token in %s as bearer token\n", tl.Addr(), ws.AdminTokenPath())
	}
	if h := srv.Info; h.MaxConns < api.MaxConns {
		log.Warn("the open-files limit leaves room for fewer connections: the ones over it are closed at once; raise it (ulimit -n) for more",
			"files-limit", h.FilesLimit, "max-conns", h.MaxConns, "max-pidfds", pidfdBudget(h.FilesLimit, watchBudget(f.noWatch)))
	}
	if ns := coordinator.CurrentPidNS(); !ns.Host {
		log.Warn("serving from a private pid namespace", "pid-namespace", ns.ID, "note", ns.Note)
	}
	rep.ready()
	errc := make(chan error, 4)
	wg.Add(2)
	go func() { defer wg.Done(); errc <- c.Run(ctx) }()
	go func() { defer wg.Done(); errc <- srv.Serve(ctx, ln, false) }()
	if tl != nil {
		wg.Add(1)
		go func() { defer wg.Done(); errc <- srv.Serve(ctx, tl, true) }()
	}
	if !f.noWatch {
		wg.Add(1)
		go func() { defer wg.Done(); watchWorkspace(ctx, ws, c, log) }()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		if why, err := c.WaitRemoved(ctx, anchor); err == nil {
			log.Warn("workspace removed or its leasegate.json changed what it serves by: the coordinator stops", "why", why)
			cancel()
		}
	}()
	if f.idleExit > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if c.WaitIdle(ctx, f.idleExit) == nil {
				cancel()
			}
		}()
	}
	select {
	case <-ctx.Done():
		return nil
	case err := <-errc:
		cancel()
		return err
	}
}

// listen listens on the workspace socket and, when tcp is set, on TCP.
func listen(ctx context.Context, sock, tcp string) (net.Listener, net.Listener, error) {
	ln, err := listenUnix(ctx, sock)
	if err != nil || tcp == "" {
		return ln, nil, err
	}
	tl, err := net.Listen("tcp", tcp)
	if err != nil {
		ln.Close()
		return nil, nil, fmt.Errorf("listen %s: %w", tcp, err)
	}
	return ln, tl, nil
}

// listenUnix listens on the workspace socket (0600). A socket file left by
// a dead coordinator is removed; one that answers means another
// coordinator is serving.
func listenUnix(ctx context.Context, path string) (net.Listener, error) {
	if _, err := os.Stat(path); err == nil {
		cl, _ := api.NewClient(api.ClientConfig{Socket: path})
		if _, err := cl.Health(ctx); err == nil {
			return nil, fmt.Errorf("a coordinator already answers at %s", path)
		}
		_ = os.Remove(path)
	}
	old := umask(0o177)
	ln, err := unixsock.Listen(path)
	umask(old)
	if err != nil {
		return nil, err
	}
	return ln, os.Chmod(path, 0o600)
}

// watchWorkspace reports writes that no gate saw until ctx ends.
func watchWorkspace(ctx context.Context, ws *workspace.Workspace, c *coordinator.Coordinator, log hclog.Logger) {
	rule, err := workspace.NewRule(ws, log)
	if err != nil {
		log.Error("workspace watcher not started", "error", err)
		return
	}
	defer rule.Close()
	// The coordinator logs what it could not record.
	report := func(chs []watch.Change) {
		for _, ch := range chs {
			_ = c.ObserveChange(ctx, ch.Path, ch.Op)
		}
	}
	lost := func() { _ = c.ObserveLoss(ctx) }
	unwatched := func(rel string) { _ = c.ObserveUnwatched(ctx, rel) }
	err = watch.Run(ctx, watch.Config{Workspace: ws, Rule: rule, Logger: log, Covered: c.Covers, CoveredTree: c.CoversTree,
		Report: report, Lost: lost, Unwatched: unwatched})
	if err != nil {
		log.Error("workspace watcher stopped", "error", err)
	}
}

// applyMemoryLimit sets the runtime's soft memory limit from the flag, or
// to defaultMemoryLimit when neither the flag nor GOMEMLIMIT (which the
// runtime has already applied) says otherwise.
func applyMemoryLimit(flagValue, env string) error {
	switch {
	case flagValue != "":
		n, err := parseBytes(flagValue)
		if err != nil {
			return fmt.Errorf("--memory-limit: %w", err)
		}
		if n == 0 {
			n = math.MaxInt64
		}
		debug.SetMemoryLimit(n)
	case env == "":
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
	return nil
}

// parseBytes reads a size such as 0, 512KiB, 48MiB, 2GiB or 1048576 (bytes).
func parseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}
	mult, num := int64(1), s
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			mult, num = u.mult, strings.TrimSuffix(s, u.suffix)
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q is not a size (a whole number of B, KiB, MiB or GiB, e.g. 48MiB)", s)
	}
	return n * mult, nil
}

// logDestination is where this process's log (its stderr) goes, as the
// kernel names it: a file's path, or "pipe:[N]", "/dev/pts/N"; "" when
// it cannot tell.
func logDestination() string {
	dest, err := os.Readlink("/proc/self/fd/2")
	if err != nil {
		return ""
	}
	return dest
}

// ledgerHint points a ledger that cannot be read back at the way out.
func ledgerHint(err error) error {
	if errors.Is(err, store.ErrCorrupt) {
		return fmt.Errorf("`leasegate ledger check` says what is readable, `leasegate ledger recover` rebuilds it: %w", err)
	}
	return err
}
