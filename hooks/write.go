package hooks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

// write gates a tool call that writes files: the gated ones are one
// mutation, granted all together or refused. The agent waits for every
// step, so the common case starts no process: the workspace is found and
// the paths classified from the files git reads (discover.go,
// ignorable.go), and git is asked only when those cannot tell.
func (h *Handler) write(ctx context.Context, ev Event) Decision {
	ctx, cancel := context.WithTimeout(ctx, h.cfg.Timeout)
	defer cancel()
	ws, err := h.workspace(ev)
	if err != nil {
		return deny(fmt.Sprintf("leasegate: cannot find the workspace (%v), so the write to %s is refused", err, gate.ShownPaths(ev.Paths, ", ")))
	}
	o, nameErr := h.owner(ws, ev)
	w := writer{key: o.key, name: o.name, explicit: o.explicit, agent: ev.Agent, transcript: ev.Transcript, whole: composedBefore(ev)}
	p := h.prepare(ctx, ws, ev)
	defer p.release()
	if d, done := h.screen(ctx, ws, p, o.name, nameErr); done {
		return d
	}
	cl := p.cl
	if cl == nil {
		if cl, err = h.cfg.Connect(ctx, ws, true); err != nil {
			return notConnected(ws, p.t.gated, err)
		}
		defer cl.Close()
	}
	return h.gateWrite(ctx, cl, ws, w, ev.Op, p.t.gated)
}

// screen decides the writes that need no gate: the rule could not be
// read, a path is in the state directory or is leasegate.json, the input
// names no owner, or
// nothing is gated (allowed, as activity).
func (h *Handler) screen(ctx context.Context, ws *workspace.Workspace, p prepared, name string, nameErr error) (Decision, bool) {
	switch {
	case p.err != nil:
		return deny(fmt.Sprintf("leasegate: cannot read the gating rule of %s (%v), so the write is refused", ws.Root, p.err)), true
	case p.t.refused != "":
		return deny(p.t.refusal(ws)), true
	case nameErr != nil:
		return Malformed(nameErr), true
	case len(p.t.gated) == 0:
		if p.cl != nil {
			h.noteActivity(ctx, p.cl, name)
		}
		return Decision{}, true
	}
	return Decision{}, false
}

// writer is who asks for a mutation.
type writer struct {
	key      string // the session's own name (sessionOwner.key)
	name     string // the owner it acts as (sessionOwner.name)
	explicit bool   // Config.Owner: registered by its sidecar, not by the hook
	agent    Agent  // whose hook: the process it looks for as liveness handle
	// transcript is the session's transcript file, which the agent may
	// hold open.
	transcript string
	// whole: the tool writes whole files composed before the call
	// (composedBefore), which a wait for another owner's lease can make
	// stale.
	whole bool
}

func (h *Handler) gateWrite(ctx context.Context, cl Coordinator, ws *workspace.Workspace, w writer, op string, paths []string) Decision {
	sess := h.session(ws, w.key)
	ctx, heard, done := h.watchSilence(ctx)
	defer done()
	if reps := h.openBlockers(ctx, cl, w.name); len(reps) > 0 {
		return blocked(reps[0])
	}
	if err := h.register(ctx, cl, sess, &w, false); err != nil {
		return h.failed(ws, paths, unreachableCause(ctx, err))
	}
	// The request names each file by the pattern matching it alone
	// (gate.Literal): "app/[id]/page.tsx" is that file, not a glob.
	lits := make([]string, len(paths))
	for i, p := range paths {
		lits[i] = gate.Literal(p)
	}
	req := leasegate.MutateRequest{Owner: w.name, Op: op, Paths: lits, Files: ws.Files(lits), RetryAfter: h.cfg.Windows.Retry}
	var before []stamp
	if w.whole {
		before = stampsOf(ws.Root, paths)
	}
	var waited waitedLease // the lease of the last contention
	contended := func(r leasegate.Result) { waited = waitedOn(r) }
	r, err := h.gate(ctx, cl, req, heard, contended)
	if errors.Is(err, gate.ErrNotFound) {
		// The coordinator does not know the owner (first use, or it was
		// ended): register it and ask again, as the owner it joins.
		if err = h.register(ctx, cl, sess, &w, true); err == nil {
			req.Owner = w.name
			r, err = h.gate(ctx, cl, req, heard, contended)
		}
	}
	if err != nil {
		return h.failed(ws, paths, unreachableCause(ctx, err))
	}
	d := h.result(paths, r)
	if w.whole && waited.holder != "" && d.Verdict == Allow {
		if changed := waited.changed(ws.Root, paths, before); len(changed) > 0 {
			d = staleWrite(changed, waited.holder)
		}
	}
	return withResolutions(d, h.resolutions(ctx, cl, sess, w.name))
}

// watchSilence cancels ctx with errUnreachable when the coordinator has
// neither answered nor been reported unreachable within
// Config.Unreachable: one that accepts connections but never answers
// (stopped, say with ^Z in the terminal running `leasegate serve`) is as
// unreachable as one that refuses them. heard ends the watch; done
// releases ctx.
func (h *Handler) watchSilence(ctx context.Context) (_ context.Context, heard, done func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	t := h.clock.AfterFunc(h.cfg.Unreachable, func() {
		cancel(fmt.Errorf("%w for %s: it accepts connections but does not answer", errUnreachable, h.cfg.Unreachable))
	})
	return ctx, func() { t.Stop() }, func() { t.Stop(); cancel(nil) }
}

// unreachableCause is err, or the reason ctx was ended if the coordinator
// was found unreachable.
func unreachableCause(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); errors.Is(cause, errUnreachable) {
		return cause
	}
	return err
}

// register records the session's owner with the agent's process as its
// liveness handle, unless this session already did with the same record.
// An explicit owner is registered only when the coordinator does not know
// it (force). A session's own name joins the live owner the coordinator
// already has for the agent's process, if any (the one the agent's MCP
// server registered before the session's first hook ran): w.name becomes
// that owner, and the session remembers it.
func (h *Handler) register(ctx context.Context, cl Coordinator, sess session, w *writer, force bool) error {
	if w.explicit && !force {
		return nil
	}
	last, ok := sess.registration()
	now := agentOwner(w.agent, w.transcript, last, w.key)
	now.Windows, now.ActsAs = h.cfg.Windows, last.ActsAs
	if ok && last == now && !force {
		return nil
	}
	owned, err := api.NewSession(ctx, cl, leasegate.Registration{Owner: now.Owner, Windows: now.Windows, HeartbeatTTL: now.HeartbeatTTL, JoinRoot: !w.explicit})
	if err != nil {
		return err
	}
	name := owned.Name()
	if w.name, now.ActsAs = name, ""; name != w.key {
		now.ActsAs = name
	}
	if err := sess.saveRegistration(now); err != nil {
		h.log.Debug("cannot remember the owner", "owner", w.name, "error", err)
	}
	return nil
}

// errUnreachable ends a wait on a coordinator that stayed unreachable for
// Config.Unreachable.
var errUnreachable = errors.New("coordinator unreachable")

// gate runs the contention protocol (api.Gate, the sidecar's too): on a
// held path it waits for the one retry, and returns at once when the
// retry opened a blocker (a hook does not hold for the operator: the
// agent would time the hook out and write). It calls heard at the coordinator's first word: an answer that makes
// the mutation wait, or a failed attempt; and contended with an answer
// that makes it wait.
func (h *Handler) gate(ctx context.Context, cl Coordinator, req leasegate.MutateRequest, heard func(), contended func(leasegate.Result)) (leasegate.Result, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var since time.Time // of the first failed attempt
	obs := api.Observer{
		Log:       h.log,
		Contended: func(r leasegate.Result) { heard(); contended(r) },
		Blocked:   func(leasegate.Result) bool { return false },
		Unavailable: func(err error, _ int) {
			heard()
			now := h.clock.Now()
			if since.IsZero() {
				since = now
			}
			if now.Sub(since) >= h.cfg.Unreachable {
				cancel(fmt.Errorf("%w for %s: %v", errUnreachable, h.cfg.Unreachable, err))
			}
		},
	}
	r, err := api.Gate(ctx, cl, req, obs)
	if cause := context.Cause(ctx); err != nil && errors.Is(cause, errUnreachable) {
		return r, cause
	}
	return r, err
}

// result turns the protocol's final answer into a decision.
func (h *Handler) result(paths []string, r leasegate.Result) Decision {
	switch r.Outcome {
	case leasegate.Granted:
		return Decision{}
	case leasegate.Blocked:
		if r.Blocker == nil {
			return halt(fmt.Sprintf("leasegate: the write to %s is blocked: %s", gate.ShownPaths(paths, ", "), r.Message), "leasegate: "+r.Message)
		}
		return blocked(*r.Blocker)
	case leasegate.Aborted:
		return halt(fmt.Sprintf("leasegate: an operator aborted this session's write to %s (%s). Stop working and tell the user.", gate.ShownPaths(paths, ", "), r.Message),
			"leasegate: the operator aborted this session: "+r.Message)
	}
	return deny(fmt.Sprintf("leasegate: the write to %s is refused: %s (%s). Do not write it by other means; go on with other work or tell the user.",
		gate.ShownPaths(paths, ", "), firstOf(r.Message, string(r.Outcome)), r.Reason))
}

// failed turns an error of the protocol into a denial: fail closed.
func (h *Handler) failed(ws *workspace.Workspace, paths []string, err error) Decision {
	files := gate.ShownPaths(paths, ", ")
	var de *gate.DeniedError
	switch {
	case errors.Is(err, errUnreachable) || errors.Is(err, api.ErrUnavailable):
		return unavailable(ws, paths, err)
	case errors.Is(err, context.DeadlineExceeded):
		return deny(fmt.Sprintf("leasegate: gave up after %s waiting for the gate's answer on %s, so the write is refused. Do not write it by other means; tell the user (leasegate status shows who holds it).", h.cfg.Timeout, files))
	case errors.Is(err, context.Canceled):
		return deny(fmt.Sprintf("leasegate: the hook was interrupted before the gate answered for %s, so the write is refused", files))
	case errors.As(err, &de) && de.Reason == gate.ReasonOwnerMismatch:
		return halt(fmt.Sprintf("leasegate: this session cannot act as its owner: %s. The write to %s is refused; tell the user.", de.Message, files),
			"leasegate: "+de.Message+"; two live agents must not share one owner name")
	case errors.As(err, &de):
		return deny(fmt.Sprintf("leasegate: the write to %s is refused: %s (%s)", files, de.Message, de.Reason))
	}
	return deny(fmt.Sprintf("leasegate: the write to %s is refused: %v", files, err))
}
