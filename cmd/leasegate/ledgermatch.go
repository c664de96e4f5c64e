package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/internal/envname"
	"github.com/leasegate/leasegate/workspace"
)

// servesNamedLedger refuses the coordinator cl reaches when
// LEASEGATE_CLUSTER names the ledger for this command and the coordinator
// serves another one (started without the variable, or with another
// value): the command would read and change the wrong lease table. h is
// the coordinator's health answer when the dial already has it, else nil.
// With the variable unset it asks nothing, so an agent hook's call costs
// no round trip more; such a command takes the coordinator that runs.
func servesNamedLedger(ctx context.Context, cl *api.Client, ws *workspace.Workspace, h *api.Health) error {
	named := namedLedger(ws)
	if named == nil {
		return nil
	}
	want := *named
	if h == nil {
		got, err := cl.Health(ctx)
		if err != nil {
			return err
		}
		h = &got
	}
	if h.Ledger != nil && h.Ledger.Same(want) {
		return nil
	}
	return &ledgerMismatchError{root: ws.Root, want: want, pid: h.PID, serves: h.Ledger}
}

// namedLedger is the ledger LEASEGATE_CLUSTER names for commands in ws,
// nil when the variable is unset: then the coordinator that runs is taken.
func namedLedger(ws *workspace.Workspace) *leasegate.LedgerView {
	want := ws.Ledger()
	if want.From != envname.Cluster {
		return nil
	}
	return &want
}

// ledgerMismatchError is a running coordinator that serves another ledger
// than the one LEASEGATE_CLUSTER names for the command.
type ledgerMismatchError struct {
	root   string
	want   leasegate.LedgerView
	pid    int
	serves *leasegate.LedgerView // nil: a coordinator too old to say
}

func (e *ledgerMismatchError) Unwrap() error { return leasegate.ErrLedgerMismatch }

func (e *ledgerMismatchError) Error() string {
	return fmt.Sprintf("%s names %s as the ledger, but the coordinator (pid %d) of %s %s; "+
		"stop it with `leasegate serve --stop` and the next command starts one on %s, or unset %s to use the one that runs",
		envname.Cluster, e.want, e.pid, e.root, leasegate.Served(e.serves), e.want, envname.Cluster)
}

// namedLedgerClient is the client of a long-lived owner (run's sidecar)
// that checks, before each registration, that the coordinator serves the
// ledger LEASEGATE_CLUSTER names. The sidecar registers again whenever the
// coordinator answering its socket does not know its owner, which is the
// case after another one took over the workspace, and that one may have
// been started without the variable: refused, the registration fails and
// the worker's writes stay held, as while no coordinator answers.
type namedLedgerClient struct {
	*api.Client
	ws *workspace.Workspace
}

// Join checks the coordinator before and after the registration: the
// check and the registration are two requests, and a registration whose
// connection broke is sent again, to whichever coordinator answers the
// socket by then. One that took over meanwhile serving another ledger is
// told the owner ended, and the registration is refused.
func (c namedLedgerClient) Join(ctx context.Context, r leasegate.Registration) (string, error) {
	if err := servesNamedLedger(ctx, c.Client, c.ws, nil); err != nil {
		return "", err
	}
	name, err := c.Client.Join(ctx, r)
	if err != nil {
		return "", err
	}
	if err := servesNamedLedger(ctx, c.Client, c.ws, nil); err != nil {
		if errors.Is(err, leasegate.ErrLedgerMismatch) {
			_, _ = c.Client.End(ctx, name, "registered with a coordinator serving another ledger than "+envname.Cluster+" names")
		}
		return "", err
	}
	return name, nil
}
