package hooks

import (
	"context"

	"github.com/leasegate/leasegate/workspace"
)

// prepared is what a write needs before it can be gated: the verdicts of
// the workspace's rule on its paths, and a client of the coordinator if
// one is running.
type prepared struct {
	t   targets
	cl  Coordinator
	err error
	// closed is closed once the rule's git process, if it started one,
	// has ended. The rule is closed after its verdicts are handed over,
	// while the write is gated, not before: the agent need not wait for
	// git to exit.
	closed <-chan struct{}
}

// prepare classifies ev's paths and connects to a running coordinator of
// ws. The client is nil when none answers: none is started here, so a
// write that turns out not to be gated starts nothing.
func (h *Handler) prepare(ctx context.Context, ws *workspace.Workspace, ev Event) prepared {
	rule, err := newGateRule(ws)
	if err != nil {
		return prepared{err: err}
	}
	p := prepared{t: classify(rule, ev)}
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		rule.Close()
	}()
	p.closed = closed
	if p.cl, err = h.cfg.Connect(ctx, ws, false); err != nil {
		p.cl = nil
	}
	return p
}

// release closes the client and waits for the rule's git to end.
func (p prepared) release() {
	if p.cl != nil {
		p.cl.Close()
	}
	if p.closed != nil {
		<-p.closed
	}
}
