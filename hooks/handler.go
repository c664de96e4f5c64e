package hooks

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/benbjohnson/clock"
	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/workspace"
)

// Handler answers hook calls.
type Handler struct {
	cfg   Config
	clock clock.Clock
	log   hclog.Logger
}

// New returns a Handler for cfg.
func New(cfg Config) (*Handler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	return &Handler{cfg: cfg, clock: cfg.Clock, log: cfg.Logger.Named("hooks")}, nil
}

// Run answers one hook call of agent a: it reads the hook input from
// stdin, handles it and renders the decision.
func (h *Handler) Run(ctx context.Context, a Agent, stdin io.Reader) Output {
	ev, err := readEvent(a, stdin)
	if err != nil {
		return Render(ev, Malformed(err))
	}
	return Render(ev, h.Handle(ctx, ev))
}

// RunMisconfigured answers one hook call of agent a that cannot be made
// as the hook's flags or environment ask, err saying why (a timeout that
// is not a duration): the call is refused naming err, where the agent
// shows it, rather than made with a default nobody chose.
func RunMisconfigured(a Agent, stdin io.Reader, err error) Output {
	ev, perr := readEvent(a, stdin)
	if perr != nil {
		ev.Kind = KindOther
	}
	return Render(ev, Misconfigured(ev, err))
}

// readEvent reads one hook call of agent a from stdin and parses it.
func readEvent(a Agent, stdin io.Reader) (Event, error) {
	data, err := io.ReadAll(io.LimitReader(stdin, MaxInput+1))
	if err != nil {
		return Event{Agent: a}, inputErr(a, "reading stdin: %v", err)
	}
	return Parse(a, data)
}

// Handle decides one parsed hook call.
func (h *Handler) Handle(ctx context.Context, ev Event) Decision {
	h.log.Debug("hook call", "agent", ev.Agent, "event", ev.Name, "tool", ev.Tool, "session", ev.Session)
	switch ev.Kind {
	case KindWrite:
		return h.write(ctx, ev)
	case KindShellBefore:
		return h.shellBefore(ctx, ev)
	case KindShellAfter:
		return h.shellAfter(ctx, ev)
	case KindPrompt:
		return h.prompt(ctx, ev)
	case KindTurnEnd:
		return h.turnEnd(ctx, ev)
	case KindSubagentStop:
		return h.subagentStop(ctx, ev)
	case KindSessionEnd:
		return h.sessionEnd(ctx, ev)
	}
	return Decision{}
}

// workspace finds the workspace of a call.
func (h *Handler) workspace(ev Event) (*workspace.Workspace, error) {
	dir, err := h.dir(ev)
	if err != nil {
		return nil, err
	}
	return findWorkspace(dir)
}

// dir is where a call's workspace is looked for: Config.Dir, else the
// event's cwd, else the current directory.
func (h *Handler) dir(ev Event) (string, error) {
	switch {
	case h.cfg.Dir != "":
		return h.cfg.Dir, nil
	case ev.Cwd != "":
		return ev.Cwd, nil
	}
	return os.Getwd()
}

func findWorkspace(dir string) (*workspace.Workspace, error) {
	ws, err := workspace.Find(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace of %s: %w", dir, err)
	}
	return ws, nil
}
