package coordinator

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
)

// owner is what the coordinator knows of a lease owner beyond its leases.
type owner struct {
	gate.Owner
	registeredAt  time.Time
	lastHeartbeat time.Time // zero until the first beat since this coordinator started
	lastActivity  time.Time
	stoppedAt     time.Time     // non-zero while a stop-idle window is open
	stoppedBy     stopSource    // what opened the window
	windows       gate.Windows  // as the owner named them; zero fields are the coordinator's
	treeEnds      bool          // its worker's tree ends with its process (Registration.TreeEnds)
	heartbeatTTL  time.Duration // as the owner named it; zero: the coordinator's
	gone          bool          // worker ended or reclaimed; kept for status until pruned
	liveness      gate.Liveness
	seen          *seen             // what the coordinator found of its process at registration
	proc          *liveness.Watched // that process, watched; nil when not identified
	unseen        string            // why its process cannot be seen: judged by heartbeat
	quietSince    time.Time         // replayed: when this coordinator began to listen for its heartbeat
}

func (c *Coordinator) replayOwner(e gate.Event) {
	switch e.Type {
	case gate.EventOwnerRegistered:
		var r registered
		if json.Unmarshal(e.Data, &r) == nil && r.Name != "" {
			o := &owner{Owner: r.Owner, registeredAt: e.At, windows: r.Windows, seen: r.Seen, treeEnds: r.TreeEnds, heartbeatTTL: r.HeartbeatTTL,
				quietSince: c.clock.Now()}
			c.owners[r.Name] = o
			c.noteRoot(o)
		}
	case gate.EventOwnerGone:
		if o := c.owners[e.Actor]; o != nil {
			o.gone = true
		}
	}
}

// register records an owner (a sidecar or hook session starting work)
// with the windows it names. A name already registered to a live,
// different process is refused: two workers must not share an identity.
func (c *Coordinator) register(ctx context.Context, r leasegate.Registration) (string, error) {
	o := r.Owner
	if err := gate.ValidID(o.Name); err != nil {
		return "", &gate.DeniedError{Reason: gate.ReasonInputInvalid, Message: "owner name: " + err.Error()}
	}
	if err := validWindows(r.Windows); err != nil {
		return "", err
	}
	if err := validTTL(r.HeartbeatTTL); err != nil {
		return "", err
	}
	cl := c.callerOf(ctx)
	sn := c.identify(ctx, o)
	c.mu.Lock()
	now := c.clock.Now()
	if j, ok := c.joinable(r, cl, sn, now); ok {
		c.log.Info("registration joins the owner of its root process", "owner", o.Name, "joins", j.Name,
			"root-pid", sn.Process.PID, "peer-pid", cl.peer.PID)
		if r.Windows == (gate.Windows{}) || r.Windows == j.windows {
			c.mu.Unlock()
			return j.Name, nil
		}
		// The windows belong to the owner that names them: the joined
		// owner is registered again, as it was, with the registrant's.
		r.Owner, o = j.Owner, j.Owner
	}
	if err := c.mayRegister(cl, o.Name); err != nil {
		c.mu.Unlock()
		return "", err
	}
	if old := c.owners[o.Name]; old != nil && !old.gone && old.Owner != o && old.PID != 0 {
		if v := c.cfg.Liveness.Evaluate(old.subject(), now); v.Status != gate.Dead {
			c.mu.Unlock()
			return "", &gate.DeniedError{Reason: gate.ReasonOwnerMismatch,
				Message: fmt.Sprintf("owner %s is already registered to live pid %d on %s (%s)", o.Name, old.PID, old.Host, strings.Join(v.Evidence, "; "))}
		}
	}
	data, _ := json.Marshal(registered{Registration: r, Seen: sn})
	if old := c.owners[o.Name]; old != nil {
		old.forget()
	}
	no := &owner{Owner: o, registeredAt: now, lastHeartbeat: now, lastActivity: now, windows: r.Windows, treeEnds: r.TreeEnds,
		heartbeatTTL: r.HeartbeatTTL}
	c.watch(no, sn)
	c.owners[o.Name] = no
	c.noteRoot(no)
	done, err := c.commit([]gate.Event{{Type: gate.EventOwnerRegistered, At: now, Actor: o.Name, Data: data}})
	c.mu.Unlock()
	if err != nil {
		return "", err
	}
	return o.Name, durable(ctx, done)
}

// joinable returns the owner a registration joins instead of registering
// its own name: with r.JoinRoot, a live owner of another name whose root
// process is r's root, as the kernel identified it from the registrant's
// connection (SO_PEERCRED, and the pid and start time of that ancestor),
// and as which the caller may act. An agent's hooks and its MCP server
// each register the agent's session, and the server may do so first,
// under a name made from the agent's pid because the agent does not tell
// it the session id: both act from one agent process, which is one
// writer, so they must be one owner. Call with c.mu held.
func (c *Coordinator) joinable(r leasegate.Registration, cl caller, sn *seen, now time.Time) (*owner, bool) {
	if !r.JoinRoot || sn == nil || sn.Unseen != "" || sn.Process.PID <= 0 {
		return nil, false
	}
	for _, name := range c.roots[sn.Process.PID] {
		o := c.owners[name]
		if o == nil || o.gone || name == r.Name || cl.actAs(name) != nil {
			continue
		}
		root := c.rootOf(o)
		if root.PID != sn.Process.PID || !sameStart(root.StartTime, sn.Process.StartTime) {
			continue
		}
		if c.cfg.Liveness.Evaluate(o.subject(), now).Status != gate.Dead {
			return o, true
		}
	}
	return nil, false
}

// Heartbeat records that an owner's sidecar is alive, and answers how
// long its gate may trust the leases it caches (beat).
func (c *Coordinator) Heartbeat(_ context.Context, name string) (leasegate.Beat, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := c.owners[name]
	if o == nil || o.gone {
		return leasegate.Beat{}, &gate.DeniedError{Reason: gate.ReasonNotFound, Message: "no registered owner " + name}
	}
	o.lastHeartbeat = c.clock.Now()
	return c.beat(name), nil
}

// Stop opens the stop-idle window for an owner: unless it mutates again
// within its idle window, all its auto leases are released. It returns
// when the release will happen; the ledger's owner.stopped event records
// the window and that time.
func (c *Coordinator) Stop(ctx context.Context, name string, why string) (time.Time, error) {
	cl := c.callerOf(ctx)
	if err := cl.actAs(name); err != nil {
		return time.Time{}, err
	}
	c.mu.Lock()
	o := c.owners[name]
	if o == nil || o.gone {
		c.mu.Unlock()
		return time.Time{}, &gate.DeniedError{Reason: gate.ReasonNotFound, Message: "no registered owner " + name}
	}
	at, done, err := c.openStopIdle(o, c.clock.Now(), stopReported, why, nil)
	c.mu.Unlock()
	if err != nil {
		return time.Time{}, err
	}
	return at, durable(ctx, done)
}

// activity notes a mutation by name and cancels a pending stop-idle.
// Call with c.mu held.
func (c *Coordinator) activity(name string, now time.Time) {
	o := c.owners[name]
	if o == nil {
		return
	}
	o.lastActivity = now
	if o.heartbeatTTL > 0 { // an owner that beats with its calls (a hook session)
		o.lastHeartbeat = now
	}
	if !o.stoppedAt.IsZero() {
		o.stoppedAt, o.stoppedBy = time.Time{}, ""
		c.sched.Activity(name)
	}
}

// Activity records activity that is not a gated mutation (a new prompt, a
// tool call) and cancels a pending stop-idle release.
func (c *Coordinator) Activity(_ context.Context, name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.activity(name, c.clock.Now())
	return nil
}

func (c *Coordinator) stopIdle(name string) {
	c.mu.Lock()
	o := c.owners[name]
	if o == nil || o.stoppedAt.IsZero() {
		c.mu.Unlock()
		return
	}
	o.stoppedAt, o.stoppedBy = time.Time{}, ""
	done, n, err := c.releaseOwner(name, "stop-idle", c.clock.Now(), func(l gate.Lease) bool { return l.Kind == gate.KindAuto })
	c.mu.Unlock()
	c.finish("stop-idle release", done, err, "owner", name, "leases", n)
}

// End releases every auto lease of an owner whose worker ended (exit,
// crash, kill) and marks it gone. Check-out leases outlive the worker.
// On a shared ledger it is done again after a lost race, like Mutate.
func (c *Coordinator) End(ctx context.Context, name, why string) (int, error) {
	return again(ctx, c, func() (int, error) { return c.end(ctx, name, why) })
}

// end is End's one attempt.
func (c *Coordinator) end(ctx context.Context, name, why string) (int, error) {
	cl := c.callerOf(ctx)
	if err := cl.actAs(name); err != nil {
		return 0, err
	}
	c.mu.Lock()
	o := c.owners[name]
	if o == nil {
		c.mu.Unlock()
		return 0, &gate.DeniedError{Reason: gate.ReasonNotFound, Message: "no registered owner " + name}
	}
	now := c.clock.Now()
	done, n, err := c.releaseOwner(name, why, now, func(l gate.Lease) bool { return l.Kind == gate.KindAuto })
	if err == nil {
		o.gone = true
		o.forget()
		c.sched.CancelIdle(name)
		var d2 <-chan error
		d2, err = c.commit([]gate.Event{{Type: gate.EventOwnerGone, At: now, Actor: name, Reason: why, By: cl.record()}})
		done = both(done, d2)
	}
	c.mu.Unlock()
	if err != nil {
		return 0, err
	}
	return n, durable(ctx, done)
}

// releaseOwner releases the owner's leases that keep() selects, as the
// owner. Call with c.mu held.
func (c *Coordinator) releaseOwner(name, why string, now time.Time, keep func(gate.Lease) bool) (<-chan error, int, error) {
	var evs []gate.Event
	for _, l := range c.table.ByOwner(name) {
		if keep(l) {
			evs = append(evs, gate.Event{Type: gate.EventReleased, At: now, Actor: name, LeaseID: l.ID, Reason: why})
		}
	}
	done, err := c.commit(evs)
	return done, len(evs), err
}

// finish waits for a background commit and logs its outcome.
func (c *Coordinator) finish(what string, done <-chan error, err error, kv ...any) {
	if err == nil {
		err = <-done
	}
	if err != nil {
		c.refused(what, what+" failed", err, kv...)
		return
	}
	c.refusals.done(what)
	c.log.Info(what, kv...)
}

// both merges two commit channels: the later one reports for both, since the
// writer commits in order.
func both(a, b <-chan error) <-chan error {
	switch {
	case a == nil:
		return orNil(b)
	case b == nil:
		return a
	}
	out := make(chan error, 1)
	go func() {
		ea, eb := <-a, <-b
		if ea != nil {
			out <- ea
			return
		}
		out <- eb
	}()
	return out
}

func orNil(ch <-chan error) <-chan error {
	if ch == nil {
		return closedNil()
	}
	return ch
}

// livenessLoop checks, every LivenessEvery, each owner that holds an auto
// lease, and reclaims the leases of the dead.
func (c *Coordinator) livenessLoop(ctx context.Context) {
	t := c.clock.Ticker(c.cfg.LivenessEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			c.CheckLiveness(ctx)
		case <-c.kick:
			c.CheckLiveness(ctx)
		}
	}
}

// CheckLiveness judges every owner holding auto leases now and reclaims
// the leases of those found dead, recording the evidence.
func (c *Coordinator) CheckLiveness(ctx context.Context) {
	c.mu.Lock()
	now := c.clock.Now()
	var dones []<-chan error
	for _, name := range c.autoOwners() {
		if !c.judgedHere(name) {
			continue
		}
		v := c.judgeHolder(name, now)
		if v.Status != gate.Dead {
			if done := c.followStop(name, v, now); done != nil {
				dones = append(dones, done)
			}
			continue
		}
		done, err := c.reclaim(name, v, now)
		if err != nil {
			c.refused("reclaim "+name, "reclaim failed; retried every liveness round", err, "owner", name)
			continue
		}
		c.refusals.done("reclaim " + name)
		dones = append(dones, done)
	}
	dones = append(dones, c.closeDeadRequesters(now)...)
	c.mu.Unlock()
	for _, d := range dones {
		if err := durable(ctx, d); err != nil {
			c.log.Error("reclaim not durable", "error", err)
		}
	}
}

// subjectOf is what the liveness evaluator judges of an owner; a holder
// of auto leases is given QuietSince as judgeHolder says. Call with c.mu
// held.
func (c *Coordinator) subjectOf(name string, holder bool) liveness.Subject {
	o := c.owners[name]
	if o == nil {
		if ls := c.table.ByOwner(name); len(ls) > 0 {
			return liveness.Subject{Owner: ls[0].Owner}
		}
		return liveness.Subject{}
	}
	subj := o.subject()
	if holder && o.lastHeartbeat.IsZero() && c.judgedHere(name) {
		subj.QuietSince = o.quietSince
	}
	return subj
}

// autoOwners lists owners with at least one active auto lease, sorted.
func (c *Coordinator) autoOwners() []string { return c.table.HolderNames(gate.KindAuto) }

// judge evaluates an owner. The lease's own owner record is the liveness
// handle, so a coordinator restarted without registrations still knows
// which process to check. Call with c.mu held.
func (c *Coordinator) judge(name string, now time.Time) gate.Liveness {
	return c.judgeSubject(name, now, false)
}

// judgeHolder evaluates an owner that holds auto leases. One judged by
// heartbeat that registered before this coordinator started, and has not
// beaten since, is dead once a whole TTL has passed since the start
// (heartbeats are not in the ledger): a restart never lets a vanished
// hook session or unseen worker keep its leases. Call with c.mu held.
func (c *Coordinator) judgeHolder(name string, now time.Time) gate.Liveness {
	return c.judgeSubject(name, now, true)
}

func (c *Coordinator) judgeSubject(name string, now time.Time, holder bool) gate.Liveness {
	v := c.cfg.Liveness.Evaluate(c.subjectOf(name, holder), now)
	if o := c.owners[name]; o != nil {
		o.liveness = v
	}
	return v
}

// reclaim ends every auto lease of a dead owner with the evidence; its
// check-outs stay, as they outlive the worker that took them.
// Call with c.mu held.
func (c *Coordinator) reclaim(name string, v gate.Liveness, now time.Time) (<-chan error, error) {
	if o := c.owners[name]; o != nil && o.treeEnds {
		v.Evidence = append(v.Evidence, "its worker's processes end with it: the sidecar runs its worker under a reaper that kills the worker's whole tree when the sidecar dies")
	}
	data, _ := json.Marshal(v)
	why := "owner dead: " + strings.Join(v.Evidence, "; ")
	var evs []gate.Event
	for _, l := range c.table.ByOwner(name) {
		if l.Kind != gate.KindAuto {
			continue // a check-out is its name's, ended by release, check-in, eviction or expiry
		}
		evs = append(evs, gate.Event{Type: gate.EventReclaimed, At: now, Actor: "liveness", LeaseID: l.ID, Reason: why, Data: data})
	}
	evs = append(evs, gate.Event{Type: gate.EventOwnerGone, At: now, Actor: name, Reason: why, Data: data})
	evs = append(evs, notice(name, leasegate.NoticeReclaimed, now, fmt.Sprintf("%d lease(s) of %s reclaimed: %s", len(evs)-1, name, why)))
	// The owner is gone while its reclaim commits (what the commit wakes
	// must not act for it), and again as it was when the ledger refuses
	// the commit (a full disk): its process stays watched, so the next
	// round judges it dead by its pidfd again rather than by a pid that
	// is no longer found, and its stop-idle window stays.
	o := c.owners[name]
	wasGone := o != nil && o.gone
	if o != nil {
		o.gone = true
	}
	done, err := c.commit(evs)
	if err != nil {
		if o != nil {
			o.gone = wasGone
		}
		return nil, err
	}
	if o != nil {
		o.forget()
	}
	c.sched.CancelIdle(name)
	c.log.Warn("reclaiming leases of dead owner", "owner", name, "leases", len(evs)-2, "evidence", why)
	return done, nil
}
