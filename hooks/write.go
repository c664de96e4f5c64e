package hooks

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

// write gates a tool call that writes files: the gated ones are one
// mutation, granted all together or refused.
func (h *Handler) write(ctx context.Context, ev Event) Decision {
	ws, err := h.workspace(ev)
	if err != nil {
		return deny(fmt.Sprintf("leasegate: cannot find the workspace (%v), so the write to %s is refused", err, strings.Join(ev.Paths, ", ")))
	}
	ctx, cancel := context.WithTimeout(ctx, h.cfg.Timeout)
	defer cancel()
	t, cl, err := h.classifyAndConnect(ctx, ws, ev)
	if cl != nil {
		defer cl.Close()
	}
	switch {
	case err != nil:
		return deny(fmt.Sprintf("leasegate: cannot read the gating rule of %s (%v), so the write is refused", ws.Root, err))
	case t.stateDir != "":
		return deny(fmt.Sprintf("leasegate: %s is inside leasegate's state directory %s, which agents may never write", t.stateDir, ws.StateDir))
	}
	name, explicit, err := h.ownerName(ev)
	if err != nil {
		return Malformed(err)
	}
	if len(t.gated) == 0 {
		if cl != nil {
			h.noteActivity(ctx, cl, name)
		}
		return Decision{}
	}
	if cl == nil {
		if cl, err = h.cfg.Connect(ctx, ws, true); err != nil {
			return unavailable(ws, t.gated, err)
		}
		defer cl.Close()
	}
	return h.gateWrite(ctx, cl, ws, writer{name: name, explicit: explicit}, ev.Op, t.gated)
}

// classifyAndConnect classifies the paths of ev while it connects to a
// running coordinator: the rule asks git, which takes a few milliseconds,
// and the answer is needed before the hook knows whether to gate at all.
// The client is nil when no coordinator answers; none is started here, so
// a write that turns out not to be gated starts nothing.
func (h *Handler) classifyAndConnect(ctx context.Context, ws *workspace.Workspace, ev Event) (targets, Coordinator, error) {
	type classified struct {
		t   targets
		err error
	}
	done := make(chan classified, 1)
	go func() {
		t, err := classify(ws, ev)
		done <- classified{t, err}
	}()
	cl, err := h.cfg.Connect(ctx, ws, false)
	if err != nil {
		cl = nil
	}
	c := <-done
	return c.t, cl, c.err
}

// writer is who asks for a mutation.
type writer struct {
	name     string
	explicit bool // Config.Owner: registered by its sidecar, not by the hook
}

func (h *Handler) gateWrite(ctx context.Context, cl Coordinator, ws *workspace.Workspace, w writer, op string, paths []string) Decision {
	sess := newSession(ws, w.name)
	if d, ok := h.openBlocker(ctx, cl, sess); ok {
		return d
	}
	if err := h.register(ctx, cl, sess, w, false); err != nil {
		return h.failed(ws, paths, err)
	}
	req := coordinator.MutateRequest{Owner: w.name, Op: op, Paths: paths}
	r, err := h.gate(ctx, cl, req)
	if errors.Is(err, gate.ErrNotFound) {
		// The coordinator does not know the owner (first use, or it was
		// ended): register it and ask again.
		if err = h.register(ctx, cl, sess, w, true); err == nil {
			r, err = h.gate(ctx, cl, req)
		}
	}
	if err != nil {
		return h.failed(ws, paths, err)
	}
	return h.result(sess, paths, r)
}

// register records the session's owner with the agent's process as its
// liveness handle, unless this session already did with the same record.
// An explicit owner is registered only when the coordinator does not know
// it (force).
func (h *Handler) register(ctx context.Context, cl Coordinator, sess session, w writer, force bool) error {
	if w.explicit && !force {
		return nil
	}
	o := agentOwner(w.name)
	if old, ok := sess.owner(); ok && old == o && !force {
		return nil
	}
	if err := cl.Register(ctx, o); err != nil {
		return err
	}
	if err := sess.saveOwner(o); err != nil {
		h.log.Debug("cannot remember the owner", "owner", w.name, "error", err)
	}
	return nil
}

// errUnreachable ends a wait on a coordinator that stayed unreachable for
// Config.Unreachable.
var errUnreachable = errors.New("coordinator unreachable")

// gate runs the contention protocol: on a held path it waits for the one
// retry, and returns at once when the retry opened a blocker (a hook does
// not hold for the operator: the agent would time the hook out and write).
func (h *Handler) gate(ctx context.Context, cl Coordinator, req coordinator.MutateRequest) (coordinator.Result, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var since = h.clock.Now()
	first := true
	obs := api.Observer{
		Blocked: func(coordinator.Result) bool { return false },
		Unavailable: func(err error, _ int) {
			now := h.clock.Now()
			if first {
				since, first = now, false
			}
			if now.Sub(since) >= h.cfg.Unreachable {
				cancel(fmt.Errorf("%w for %s: %v", errUnreachable, h.cfg.Unreachable, err))
			}
		},
	}
	r, err := cl.Gate(ctx, req, obs)
	if cause := context.Cause(ctx); err != nil && errors.Is(cause, errUnreachable) {
		return r, cause
	}
	return r, err
}

// result turns the protocol's final answer into a decision.
func (h *Handler) result(sess session, paths []string, r coordinator.Result) Decision {
	switch r.Outcome {
	case coordinator.Granted:
		return Decision{}
	case coordinator.Blocked:
		if r.Blocker == nil {
			return halt(fmt.Sprintf("leasegate: the write to %s is blocked: %s", strings.Join(paths, ", "), r.Message), "leasegate: "+r.Message)
		}
		if err := sess.markBlocker(r.Blocker.ID); err != nil {
			h.log.Debug("cannot remember the blocker", "blocker", r.Blocker.ID, "error", err)
		}
		return blocked(*r.Blocker)
	case coordinator.Aborted:
		return halt(fmt.Sprintf("leasegate: an operator aborted this session's write to %s (%s). Stop working and tell the user.", strings.Join(paths, ", "), r.Message),
			"leasegate: the operator aborted this session: "+r.Message)
	}
	return deny(fmt.Sprintf("leasegate: the write to %s is refused: %s (%s). Do not write it by other means; go on with other work or tell the user.",
		strings.Join(paths, ", "), firstOf(r.Message, string(r.Outcome)), r.Reason))
}

// failed turns an error of the protocol into a denial: fail closed.
func (h *Handler) failed(ws *workspace.Workspace, paths []string, err error) Decision {
	files := strings.Join(paths, ", ")
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

// unavailable is the denial when the coordinator cannot be reached: the
// session halts, since every write would be refused the same way.
func unavailable(ws *workspace.Workspace, paths []string, err error) Decision {
	return halt(
		fmt.Sprintf("leasegate: the lease coordinator of %s cannot be reached (%v), so the write to %s is refused: writes fail closed while it is down. Do not write the file by other means; tell the user.",
			ws.Root, err, strings.Join(paths, ", ")),
		fmt.Sprintf("leasegate: the coordinator of %s cannot be reached: %v. Check it with `leasegate status --workspace %s`; agent writes are refused until it answers.", ws.Root, err, ws.Root))
}

// blocked is the denial of a write whose one retry found the file still
// held: the model learns what is held and must stop; the operator learns
// how to resolve the blocker.
func blocked(rep blocker.Report) Decision {
	holder := rep.Holder.Owner.Name
	return halt(
		fmt.Sprintf("leasegate: %s is leased by %s (lease %s, held for %s). The write was retried once after %s and the file is still held, so blocker %s is open and this session is halted. Do not write %s by any other means (shell redirection, sed, mv, git checkout). Stop and tell the user that an operator must resolve blocker %s.",
			rep.Path, holder, rep.Holder.LeaseID, rep.Holder.HeldFor.Round(time.Second), rep.RetryInterval, rep.ID, rep.Path, rep.ID),
		blockerStop(rep))
}

// blockerStop tells the operator what holds a session and how to resolve it.
func blockerStop(rep blocker.Report) string {
	holder := rep.Holder.Owner.Name
	return fmt.Sprintf("leasegate: blocker %s: %s is leased by %s, so this session is halted. Resolve it with `leasegate resolve %s --retry` (after %s commits or releases the file), `--deny` (refuse the write; the session goes on) or `--abort`; details: `leasegate blockers %s`.",
		rep.ID, rep.Path, holder, rep.ID, holder, rep.ID)
}

// openBlocker denies every write of a session that has an open blocker: the
// session is halted until an operator resolves it, and asking again must
// not start another 180 s wait.
func (h *Handler) openBlocker(ctx context.Context, cl Coordinator, sess session) (Decision, bool) {
	for _, id := range sess.blockers() {
		rep, err := cl.Blocker(ctx, id)
		switch {
		case err == nil && rep.Status == blocker.StatusOpen:
			return blocked(rep), true
		case err == nil || errors.Is(err, gate.ErrNotFound):
			sess.clearBlocker(id)
		}
	}
	return Decision{}, false
}
