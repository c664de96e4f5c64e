package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/liveness"
	"github.com/leasegate/leasegate/notify"
	"github.com/leasegate/leasegate/store/bolt"
	"github.com/leasegate/leasegate/watch"
	"github.com/leasegate/leasegate/workspace"
)

// defaultIdleExit is how long a coordinator with no owners, leases or held
// mutations keeps running before it stops itself.
const defaultIdleExit = 10 * time.Minute

type serveFlags struct {
	common
	listen    string
	notifyURL string
	idleExit  time.Duration
	noWatch   bool
}

func cmdServe(ctx context.Context, args []string) error {
	var f serveFlags
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	f.register(fs, true)
	fs.StringVar(&f.listen, "listen", "", "also listen on TCP at this address (e.g. 127.0.0.1:7070); requests need the admin token as bearer token")
	fs.StringVar(&f.notifyURL, "notify-url", os.Getenv("LEASEGATE_NOTIFY_URL"), "POST every owner notice (reminder, eviction, reclaim, blocker) to this URL as JSON")
	fs.BoolVar(&f.noWatch, "no-watch", false, "do not watch the workspace for writes that no gate saw")
	fs.DurationVar(&f.idleExit, "idle-exit", defaultIdleExit, "stop after this long with no owners, leases or held mutations (0 = never)")
	if _, err := parseMixed(fs, args); err != nil {
		return err
	}
	ws, err := f.workspace()
	if err != nil {
		return err
	}
	return serve(ctx, f, ws)
}

func serve(ctx context.Context, f serveFlags, ws *workspace.Workspace) error {
	log := f.logger("leasegate")
	if err := ws.EnsureStateDir(); err != nil {
		return err
	}
	token, err := ws.AdminToken()
	if err != nil {
		return err
	}
	ledger, err := bolt.Open(ws.LedgerPath(), bolt.Config{Logger: log})
	if err != nil {
		return fmt.Errorf("open ledger (is another coordinator running for %s?): %w", ws.Root, err)
	}
	live, err := liveness.New(liveness.Config{TTL: liveness.DefaultTTL, Logger: log})
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
	cfg.BlockerDir = filepath.Join(ws.StateDir, "blockers")
	cfg.RetryAfter, cfg.IdleAfter = f.retryAfter, f.idleAfter
	if f.notifyURL != "" {
		n, err := notify.New(notify.Config{URL: f.notifyURL, Logger: log, Undelivered: func(x coordinator.Notice, cause error) {
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
		return err
	}
	srv := api.NewServer(c, token, api.Health{Version: version, Workspace: ws.Root, PID: os.Getpid()}, log)
	ln, err := listenUnix(ctx, ws.SocketPath())
	if err != nil {
		cancel()
		_ = c.Run(ctx) // closes the ledger
		return err
	}
	log.Info("coordinator serving", "workspace", ws.Root, "socket", ws.SocketPath(), "retry-after", f.retryAfter, "idle-after", f.idleAfter)
	errc := make(chan error, 4)
	wg.Add(2)
	go func() { defer wg.Done(); errc <- c.Run(ctx) }()
	go func() { defer wg.Done(); errc <- srv.Serve(ctx, ln, false) }()
	if f.listen != "" {
		tl, err := net.Listen("tcp", f.listen)
		if err != nil {
			cancel()
			return fmt.Errorf("listen %s: %w", f.listen, err)
		}
		wg.Add(1)
		go func() { defer wg.Done(); errc <- srv.Serve(ctx, tl, true) }()
	}
	if !f.noWatch {
		wg.Add(1)
		go func() { defer wg.Done(); watchWorkspace(ctx, ws, c, log) }()
	}
	if f.idleExit > 0 {
		wg.Add(1)
		go func() { defer wg.Done(); idleExit(ctx, c, f.idleExit, cancel) }()
	}
	select {
	case <-ctx.Done():
		return nil
	case err := <-errc:
		cancel()
		return err
	}
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
	ln, err := net.Listen("unix", path)
	umask(old)
	if err != nil {
		return nil, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(true)
	return ln, os.Chmod(path, 0o600)
}

func idleExit(ctx context.Context, c *coordinator.Coordinator, after time.Duration, stop context.CancelFunc) {
	t := time.NewTicker(min(after, 10*time.Second))
	defer t.Stop()
	idleSince := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if c.Busy() {
			idleSince = time.Now()
			continue
		}
		if time.Since(idleSince) >= after {
			stop()
			return
		}
	}
}

// watchWorkspace reports writes that no gate saw until ctx ends.
func watchWorkspace(ctx context.Context, ws *workspace.Workspace, c *coordinator.Coordinator, log hclog.Logger) {
	rule, err := workspace.NewRule(ws, log)
	if err != nil {
		log.Error("workspace watcher not started", "error", err)
		return
	}
	defer rule.Close()
	err = watch.Run(ctx, watch.Config{Workspace: ws, Rule: rule, Logger: log, Report: func(ch watch.Change) {
		if err := c.ObserveChange(ctx, ch.Path, ch.Op); err != nil && ctx.Err() == nil {
			log.Warn("ungated write not recorded", "path", ch.Path, "error", err)
		}
	}})
	if err != nil {
		log.Error("workspace watcher stopped", "error", err)
	}
}
