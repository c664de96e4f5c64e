package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/internal/envname"
	"github.com/leasegate/leasegate/store/etcd"
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
	same, err := h.Ledger != nil, error(nil)
	if same {
		same, err = want.SameAsking(ctx, *h.Ledger, oneCluster)
	}
	if same {
		return nil
	}
	return &ledgerMismatchError{root: ws.Root, want: want, pid: shownCoordinatorPID(coordinatorPID(ctx, ws, *h), h.PID),
		serves: h.Ledger, cause: err}
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

// oneCluster asks etcd whether a and b, two lists of endpoints, reach one
// cluster: both report the same cluster id. Only etcd can tell
// (http://127.0.0.1:2379 and http://localhost:2379, or two members of one
// cluster); LedgerView.SameAsking asks only where the workspace is the
// same and the lists differ, so a command against its own coordinator
// costs no round trip to etcd.
func oneCluster(ctx context.Context, a, b []string) (bool, error) {
	ida, err := etcd.ClusterID(ctx, a)
	if err != nil {
		return false, err
	}
	idb, err := etcd.ClusterID(ctx, b)
	if err != nil {
		return false, err
	}
	return ida == idb, nil
}

// ledgerMismatchError is a running coordinator that serves another ledger
// than the one LEASEGATE_CLUSTER names for the command.
type ledgerMismatchError struct {
	root   string
	want   leasegate.LedgerView
	pid    string                // the coordinator's, as shownCoordinatorPID names it
	serves *leasegate.LedgerView // nil: a coordinator too old to say
	// cause is why etcd could not be asked whether the two endpoint lists
	// reach one cluster; nil when it was asked, or was not asked.
	cause error
}

func (e *ledgerMismatchError) Unwrap() error { return leasegate.ErrLedgerMismatch }

func (e *ledgerMismatchError) Error() string {
	if e.cause != nil {
		return fmt.Sprintf("%s names %s as the ledger, and the coordinator, %s, of %s %s: "+
			"whether both reach one etcd cluster could not be asked, so it is refused as another ledger until etcd answers at both: %v",
			envname.Cluster, e.want, e.pid, e.root, leasegate.Served(e.serves), e.cause)
	}
	return fmt.Sprintf("%s names %s as the ledger, but the coordinator, %s, of %s %s; "+
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
