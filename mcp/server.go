package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/hashicorp/go-hclog"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/leasegate/leasegate/workspace"
)

// Config configures a Server.
type Config struct {
	// Connect reaches the workspace's coordinator. Required.
	Connect ConnectFunc
	// Workspace is the workspace whose leases the tools show. Required.
	Workspace *workspace.Workspace
	// Owner is the owner name to act as (--as, LEASEGATE_AS). Empty
	// means the owner the coordinator finds in this process's ancestry
	// (the session the agent's hooks registered), else one registered
	// for the agent's session with the agent process as liveness handle.
	Owner string
	// ParentPID is where the search for the agent process starts.
	// Default: this process's parent.
	ParentPID int
	// Version is reported to the client. Default "dev".
	Version string
	// Logger; nil means no logging. Never stdout: that is the protocol.
	Logger hclog.Logger
	// CallTimeout bounds a tool call: past it, a coordinator that has not
	// answered (paused, stopped mid-call, or waiting for etcd) is said
	// to be unavailable. Default DefaultCallTimeout.
	CallTimeout time.Duration
	// Clock times CallTimeout. Default: the real clock.
	Clock clock.Clock
}

// DefaultCallTimeout is the longest a tool call waits for the
// coordinator: a healthy one answers in milliseconds, and Codex gives a
// tool call 60 s by default before it gives up without saying why.
const DefaultCallTimeout = 30 * time.Second

// ErrInvalidConfig is returned (wrapped) by New.
var ErrInvalidConfig = errors.New("invalid mcp config")

// Validate reports what is wrong with c.
func (c Config) Validate() error {
	switch {
	case c.Connect == nil:
		return fmt.Errorf("connect is not set: %w", ErrInvalidConfig)
	case c.Workspace == nil:
		return fmt.Errorf("workspace is not set: %w", ErrInvalidConfig)
	}
	if c.Owner != "" {
		if err := checkID("owner", c.Owner); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidConfig, err)
		}
	}
	return nil
}

// Server is leasegate's MCP server for one workspace.
type Server struct {
	cfg  Config
	ws   *workspace.Workspace
	conn *conn
	id   *identity
	log  hclog.Logger
	srv  *sdk.Server
	// watch tells subscribers when a path changes hands.
	watch watch
	// runCtx ends at Close; wg waits for the goroutines it ends.
	runCtx context.Context
	stop   context.CancelFunc
	wg     sync.WaitGroup
}

// New builds the server and its tools.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.ParentPID == 0 {
		cfg.ParentPID = os.Getppid()
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	if cfg.CallTimeout == 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.New()
	}
	s := &Server{cfg: cfg, ws: cfg.Workspace, conn: newConn(cfg.Connect),
		id: &identity{explicit: cfg.Owner, parent: cfg.ParentPID}, log: cfg.Logger.Named("mcp")}
	s.runCtx, s.stop = context.WithCancel(context.Background())
	s.watch.paths, s.watch.last, s.watch.checked = map[string]string{}, map[string]string{}, map[string]string{}
	s.watch.pending = map[string]int{}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "leasegate", Title: "leasegate leases", Version: cfg.Version},
		&sdk.ServerOptions{Instructions: instructionsFor(cfg.Workspace), SubscribeHandler: s.subscribe, UnsubscribeHandler: s.unsubscribe})
	s.srv.AddReceivingMiddleware(errorResults, s.callDeadline, s.subscriptions)
	s.srv.AddSendingMiddleware(s.subscriptions)
	s.addTools()
	s.addResources()
	return s, nil
}

// instructions tell the model what the server is for.
const instructions = "leasegate gates file writes in this workspace between several coding agents. " +
	"Before editing files, call leases_check with them: a file held by another owner will make your write wait " +
	"(up to its retry time) and may halt you with a blocker; choose other work instead. " +
	"To reserve files or a folder for a task, lease_acquire them; lease_release or lease_checkin when done."

// instructionsFor is instructions, and, for a server started inside a
// submodule of the workspace, how to name the submodule's files: tools
// take paths from the superproject's root (Workspace.Submodule), which a
// model started in the submodule takes for its project's, so its x.go
// would name the superproject's.
func instructionsFor(ws *workspace.Workspace) string {
	if ws == nil || ws.Submodule == "" {
		return instructions
	}
	rel, _ := ws.Rel(ws.Submodule)
	rel = filepath.ToSlash(rel)
	return instructions + fmt.Sprintf(" Paths are relative to the workspace root %s, the superproject of the submodule %s/ you work in: "+
		"name its files with that prefix (%s/main.go, not main.go) or give absolute paths.", ws.Root, rel, rel)
}

// Run serves the MCP protocol on t until the client disconnects or ctx
// ends, then closes the server. It reaches the coordinator (starting one)
// at once, in the background: a coordinator that runs before the agent's
// first prompt learns the session from the agent's hooks, which this
// server then acts for.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	defer s.Close()
	// The first connect ends with Close too, so that a coordinator that
	// does not answer cannot keep the server from closing.
	first, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.runCtx, cancel)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer stop()
		defer cancel()
		if _, err := s.conn.get(first); err != nil {
			s.log.Debug("no coordinator yet", "error", err)
		}
	}()
	return s.srv.Run(ctx, t)
}

// SDK returns the SDK server, to connect it to a transport directly.
func (s *Server) SDK() *sdk.Server { return s.srv }

// Close ends the server's goroutines (the watch of subscribed paths) and
// releases the coordinator client.
func (s *Server) Close() {
	s.stop()
	s.wg.Wait()
	s.conn.close()
}

// addTools registers every tool, one AddTool each (in their files).
func (s *Server) addTools() {
	s.addCheck()
	s.addStatus()
	s.addLeases()
	s.addBlockers()
	s.addHistory()
}
