package console

import (
	"context"
	"fmt"

	"github.com/leasegate/leasegate"
)

// LedgerChangedError is a coordinator that answers the console's socket
// but serves another ledger than the one the console was started on: the
// coordinator was replaced, after the console's start, by one started
// without LEASEGATE_CLUSTER or with another value. The page says so and
// resolutions are refused until a coordinator of the console's ledger
// answers again.
type LedgerChangedError struct {
	Want   leasegate.LedgerView
	PID    int
	Serves *leasegate.LedgerView // nil: a coordinator too old to say
	// Cause is why etcd could not be asked whether the coordinator's
	// endpoints reach the console's cluster; nil when it said they do not,
	// or was not asked.
	Cause error
}

func (e *LedgerChangedError) Unwrap() error { return leasegate.ErrLedgerMismatch }

func (e *LedgerChangedError) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("the coordinator now answering (pid %d) %s; whether that is the console's %s (%s) could not be asked: %v; "+
			"this page shows and resolves nothing of it until it can",
			e.PID, leasegate.Served(e.Serves), e.Want, e.Want.Source(), e.Cause)
	}
	return fmt.Sprintf("the coordinator now answering (pid %d) %s, not the console's %s (%s): "+
		"this page shows and resolves nothing of it; stop it with `leasegate serve --stop` so that one on the console's ledger is started",
		e.PID, leasegate.Served(e.Serves), e.Want, e.Want.Source())
}

// checkLedger asks the coordinator which ledger it serves and returns a
// *LedgerChangedError when it is not the console's (Config.Ledger, or
// its workspace on endpoints Config.AskCluster finds in the same etcd
// cluster); with no ledger named it asks nothing. It runs before each event stream (the
// page opens one again whenever a coordinator's stream ends, which is how
// a replaced coordinator shows) and before each resolution.
func (s *Server) checkLedger(ctx context.Context) error {
	if s.ledger == nil {
		return nil
	}
	h, err := s.svc.Health(ctx)
	if err != nil {
		return err
	}
	if h.Ledger == nil {
		return &LedgerChangedError{Want: *s.ledger, PID: h.PID}
	}
	same, err := s.ledger.SameAsking(ctx, *h.Ledger, s.ask)
	if same {
		return nil
	}
	return &LedgerChangedError{Want: *s.ledger, PID: h.PID, Serves: h.Ledger, Cause: err}
}
