package hooks

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

// lifecycleTimeout bounds the calls of events that gate nothing. Claude
// Code gives SessionEnd 1.5 s in all.
const lifecycleTimeout = time.Second

// running returns the workspace and the owner of an event that needs no
// gating, and a client of a running coordinator. A coordinator that is not
// running is not started: then no lease of the session is held anywhere,
// and ok is false.
func (h *Handler) running(ctx context.Context, ev Event) (cl Coordinator, ws *workspace.Workspace, o sessionOwner, ok bool) {
	ws, err := h.workspace(ev)
	if err != nil {
		return nil, nil, o, false
	}
	if o, err = h.owner(ws, ev); err != nil {
		return nil, nil, o, false
	}
	if cl, err = h.cfg.Connect(ctx, ws, false); err != nil {
		h.log.Debug("no coordinator", "workspace", ws.Root, "error", err)
		return nil, nil, o, false
	}
	return cl, ws, o, true
}

// ownerSession is the session of owner name, which a hook call of the same
// agent session registered before (register): each hook is a process of
// its own, so what the session's calls share is remembered in the state
// directory, and a call that finds the owner forgotten registers it again
// from there (register with force), not through this session.
func ownerSession(cl Coordinator, name string) *api.Session {
	return api.ResumeSession(cl, leasegate.Registration{Owner: gate.Owner{Name: name}}, name)
}

// activity tells a running coordinator that the owner is at work, which
// cancels a pending stop-idle release. Best effort.
func (h *Handler) activity(ctx context.Context, ws *workspace.Workspace, name string) {
	ctx, cancel := context.WithTimeout(ctx, lifecycleTimeout)
	defer cancel()
	cl, err := h.cfg.Connect(ctx, ws, false)
	if err != nil {
		return
	}
	defer cl.Close()
	h.noteActivity(ctx, cl, name)
}

func (h *Handler) noteActivity(ctx context.Context, cl Coordinator, name string) {
	if err := ownerSession(cl, name).Activity(ctx); err != nil {
		h.log.Debug("activity not recorded", "owner", name, "error", err)
	}
}

// prompt records activity, and refuses the prompt while the session has an
// open blocker: the session is halted until an operator resolves it.
func (h *Handler) prompt(ctx context.Context, ev Event) Decision {
	ctx, cancel := context.WithTimeout(ctx, lifecycleTimeout)
	defer cancel()
	cl, ws, o, ok := h.running(ctx, ev)
	if !ok {
		return Decision{}
	}
	defer cl.Close()
	name := h.announce(ctx, cl, ws, ev, o)
	h.noteActivity(ctx, cl, name)
	if reps := h.openBlockers(ctx, cl, name); len(reps) > 0 {
		return Decision{Verdict: Refuse, StopReason: refusal(reps, "this prompt is refused")}
	}
	sess := h.session(ws, o.key)
	told := strings.Join(nonEmpty(h.resolutions(ctx, cl, sess, name), h.waitingOn(ctx, cl, sess, name)), "\n")
	return withResolutions(Decision{}, told)
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// announce registers the session before its first write, so that the
// MCP server its agent started finds the session's owner by its ancestry
// (the coordinator's whoami) and acts for it, or joins the owner that
// server registered first. It returns the owner the session acts as.
// Best effort.
func (h *Handler) announce(ctx context.Context, cl Coordinator, ws *workspace.Workspace, ev Event, o sessionOwner) string {
	w := writer{key: o.key, name: o.name, explicit: o.explicit, agent: ev.Agent, transcript: ev.Transcript}
	if err := h.register(ctx, cl, h.session(ws, o.key), &w, false); err != nil {
		h.log.Debug("session not registered", "owner", o.name, "error", err)
	}
	return w.name
}

// turnEnd opens the owner's stop-idle window: unless it writes again within
// the window (30 s), its leases are released. With an open blocker it also
// halts the agent.
func (h *Handler) turnEnd(ctx context.Context, ev Event) Decision {
	ctx, cancel := context.WithTimeout(ctx, lifecycleTimeout)
	defer cancel()
	cl, ws, o, ok := h.running(ctx, ev)
	if !ok {
		return Decision{}
	}
	defer cl.Close()
	name := o.name
	var d Decision
	if reps := h.openBlockers(ctx, cl, name); len(reps) > 0 {
		d = Decision{Verdict: Refuse, StopReason: refusal(reps, "the session stays halted")}
	}
	h.rewindow(ctx, cl, ws, o)
	if _, err := ownerSession(cl, name).Stop(ctx, ev.Agent.String()+" "+ev.Name); err != nil && !errors.Is(err, gate.ErrNotFound) {
		d.Warning = fmt.Sprintf("leasegate: could not start the stop-idle window of %s: %v", name, err)
	}
	return d
}

// rewindow registers a session the hook registered before again when this
// call names other windows, so that its stop-idle release comes after the
// idle window this call names. Best effort: the Stop goes on regardless.
func (h *Handler) rewindow(ctx context.Context, cl Coordinator, ws *workspace.Workspace, o sessionOwner) {
	if h.cfg.Owner != "" || h.cfg.Windows == (gate.Windows{}) {
		return
	}
	sess := h.session(ws, o.key)
	if last, ok := sess.registration(); !ok || last.Windows == h.cfg.Windows {
		return
	}
	if err := h.register(ctx, cl, sess, &writer{key: o.key, name: o.name}, false); err != nil {
		h.log.Debug("windows not registered", "owner", o.name, "error", err)
	}
}

// subagentStop is activity: a subagent shares its session's owner, and the
// turn goes on after it stops, so the session's leases must stay.
func (h *Handler) subagentStop(ctx context.Context, ev Event) Decision {
	ws, err := h.workspace(ev)
	if err != nil {
		return Decision{}
	}
	if o, err := h.owner(ws, ev); err == nil {
		h.activity(ctx, ws, o.name)
	}
	return Decision{}
}

// sessionEnd releases every lease of the session and forgets it. An
// explicit owner (LEASEGATE_AS) belongs to the sidecar that runs the agent,
// which ends it when the agent exits.
func (h *Handler) sessionEnd(ctx context.Context, ev Event) Decision {
	ctx, cancel := context.WithTimeout(ctx, lifecycleTimeout)
	defer cancel()
	ws, err := h.workspace(ev)
	if err != nil {
		return Decision{}
	}
	o, err := h.owner(ws, ev) // the owner it acts as, read before its record goes
	if err != nil {
		return Decision{}
	}
	_ = h.session(ws, o.key).remove()
	if o.explicit {
		return Decision{}
	}
	cl, err := h.cfg.Connect(ctx, ws, false)
	if err != nil {
		h.log.Debug("no coordinator", "workspace", ws.Root, "error", err)
		return Decision{}
	}
	defer cl.Close()
	if _, err := ownerSession(cl, o.name).End(ctx, ev.Agent.String()+" session ended"); err != nil && !errors.Is(err, gate.ErrNotFound) {
		return warn(fmt.Sprintf("leasegate: could not release the leases of %s: %v", o.name, err))
	}
	return Decision{}
}

// openBlockers lists the open blockers the owner's writes ran into.
func (h *Handler) openBlockers(ctx context.Context, cl Coordinator, name string) []blocker.Report {
	reps, err := cl.Blockers(ctx, false)
	if err != nil {
		h.log.Debug("cannot list blockers", "error", err)
		return nil
	}
	var mine []blocker.Report
	for _, r := range reps {
		if r.Requester.Name == name && r.Status == blocker.StatusOpen {
			mine = append(mine, r)
		}
	}
	return mine
}
