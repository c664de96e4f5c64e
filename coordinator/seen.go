package coordinator

import (
	"context"
	"fmt"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
)

// seen is what the coordinator itself found of an owner's process when it
// registered, from the connection's peer (SO_PEERCRED) rather than from
// what the owner reported. It is recorded with the registration, so a
// restarted coordinator watches the same process.
type seen struct {
	// Process is the owner's process as the coordinator's pid namespace
	// sees it; zero when Unseen is set.
	Process liveness.ProcID `json:"process,omitzero"`
	// PidNS is the coordinator's pid namespace, in which Process.PID is
	// meant ("pid:[4026531836]").
	PidNS string `json:"pid_ns"`
	// Unseen says why the process cannot be seen: the owner is judged by
	// its heartbeat alone.
	Unseen string `json:"unseen,omitempty"`
}

// registered is the payload of an owner.registered event: the
// registration and, when there was a peer, what the coordinator saw.
type registered struct {
	leasegate.Registration
	Seen *seen `json:"seen,omitempty"`
}

// identify finds the process of an owner registering over ctx's
// connection: the peer, or the ancestor of it whose pid in the peer's own
// pid namespace is the one the owner reported. Nil when there is no peer
// (a caller in this process, or on TCP: the reported pid is all there is)
// or the reported pid is not found among them (it is then judged as
// reported, and never dead while its heartbeats are fresh).
func (c *Coordinator) identify(ctx context.Context, o gate.Owner) *seen {
	p, ok := leasegate.PeerOf(ctx)
	switch {
	case !ok:
		return nil
	case p.PID == 0:
		return &seen{PidNS: c.pidNS.ID, Unseen: fmt.Sprintf(
			"the owner's process is outside the coordinator's pid namespace %s (SO_PEERCRED gives no pid): judged by heartbeat", c.pidNS.ID)}
	}
	id, err := liveness.Identify(p.PID, o.PID, o.StartTime)
	if err != nil {
		c.cfg.Descriptors.Note(err)
		c.log.Warn("owner's process not identified: judged by its registered pid", "owner", o.Name, "peer-pid", p.PID, "error", err)
		return nil
	}
	return &seen{Process: id, PidNS: c.pidNS.ID}
}

// watch starts watching what was seen of o's process. Call with c.mu held.
func (c *Coordinator) watch(o *owner, s *seen) {
	o.forget()
	o.seen = s
	switch {
	case s == nil:
		return
	case s.Unseen != "":
		o.unseen = s.Unseen
		return
	case s.PidNS != c.pidNS.ID:
		o.unseen = fmt.Sprintf("registered with a coordinator in pid namespace %s, not this one's %s: judged by heartbeat until it registers again",
			s.PidNS, c.pidNS.ID)
		return
	}
	w, err := c.cfg.Descriptors.Watch(s.Process, c.kickLiveness)
	if err != nil {
		// Gone already: judged by its pid and start time, which no live
		// process has.
		w = liveness.Unwatched(s.Process)
	}
	o.proc = w
}

// subject is what the liveness evaluator judges of o.
func (o *owner) subject() liveness.Subject {
	return liveness.Subject{Owner: o.Owner, LastHeartbeat: o.lastHeartbeat, Process: o.proc, Unseen: o.unseen, TTL: o.heartbeatTTL}
}

// seenPID is the owner's pid as the coordinator sees it, 0 when it did
// not identify the process.
func (o *owner) seenPID() int {
	if o.proc != nil {
		return o.proc.PID
	}
	return 0
}

// rootOf is o's root process as this coordinator's pid namespace sees
// it: the process identified at registration, else the pid and start time
// the owner reported.
func (c *Coordinator) rootOf(o *owner) liveness.ProcID {
	if s := o.seen; s != nil && s.Unseen == "" && s.PidNS == c.pidNS.ID {
		return s.Process
	}
	return liveness.ProcID{PID: o.PID, StartTime: o.StartTime}
}

// forget stops watching o's process.
func (o *owner) forget() {
	o.proc.Close()
	o.proc, o.unseen = nil, ""
}

// kickLiveness asks the liveness loop for a check now (an owner's process
// exited). It never blocks.
func (c *Coordinator) kickLiveness() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// watchReplayed watches the processes of the owners the ledger says are
// registered. Call before Run's goroutines start.
func (c *Coordinator) watchReplayed() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, o := range c.owners {
		if !o.gone {
			c.watch(o, o.seen)
		}
	}
}

// forgetAll stops every watch (the coordinator is stopping).
func (c *Coordinator) forgetAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, o := range c.owners {
		o.forget()
	}
}
