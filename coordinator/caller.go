package coordinator

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
)

// caller is who a request comes from, as the coordinator establishes it
// from the connection's peer (SO_PEERCRED) and the peer's ancestry, never
// from a name the request claims.
//
//   - trusted: no peer at all, a caller in this process or on TCP, where
//     the API has checked the bearer token (DESIGN.md §6 says what that
//     leaves open);
//   - an owner's process: the root process of one or more registered owners
//     (a run sidecar, a hook session's agent) is among the peer's
//     ancestors; it acts only as those owners, nearest first;
//   - an operator: a visible process of the coordinator's own user (or
//     root) outside every owner's tree;
//   - unidentified: anything else (another user, a pid the coordinator
//     cannot see, a connecting process that has exited); it acts as no one.
type caller struct {
	trusted  bool
	peer     gate.Peer
	owners   []string // owners whose root is an ancestor, nearest first
	root     int      // the nearest owner's root pid
	operator bool
	unknown  error         // why the peer is unidentified
	busy     bool          // unknown is a want of resources, not a verdict (peer.go)
	unseen   bool          // the peer is outside the coordinator's pid namespace (unseen.go)
	nsRoot   string        // with unseen: the workspace, for the command that acts from inside the namespace
	nsEnter  string        // with unseen: the nsenter command line, up to the workspace, that enters the namespace
	comm     func() string // the peer's command name, read once per connection
	hostUID  uint32        // the peer's uid as the parent user namespace knows it (userns.go)
}

// callerOf identifies the caller of ctx. The peer's ancestry is read once
// per connection, outside c.mu; the match against owners' roots takes
// c.mu briefly.
func (c *Coordinator) callerOf(ctx context.Context) caller {
	pc := leasegate.ConnectionOf(ctx)
	if pc == nil {
		return caller{trusted: true}
	}
	if pc.Peer.PID <= 0 {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.unseenCaller(pc.Peer)
	}
	ch := ancestry(pc)
	if ch.err != nil {
		return caller{peer: pc.Peer, unknown: ch.err, busy: ch.busy}
	}
	c.mu.Lock()
	cl := c.matchRoots(ch.procs)
	c.mu.Unlock()
	cl.peer, cl.comm, cl.hostUID = pc.Peer, ch.comm, c.uids.host(pc.Peer.UID)
	if len(cl.owners) == 0 {
		cl.operator, cl.unknown = operatorUID(pc.Peer)
	}
	return cl
}

// matchRoots finds the owners whose root process is in chain. Call with
// c.mu held.
func (c *Coordinator) matchRoots(chain []liveness.Proc) caller {
	var cl caller
	for _, p := range chain {
		for _, name := range c.roots[p.PID] {
			if o := c.owners[name]; o != nil && c.rootOf(o).PID == p.PID && sameStart(c.rootOf(o).StartTime, p.StartTime) && !slices.Contains(cl.owners, name) {
				if len(cl.owners) == 0 {
					cl.root = p.PID
				}
				cl.owners = append(cl.owners, name)
			}
		}
	}
	return cl
}

// sameStart compares a registered start time with a process's, with the
// slack liveness allows for boot-time rounding.
func sameStart(registered, actual int64) bool {
	d := time.Duration(registered-actual) * time.Millisecond
	return d <= liveness.StartSlack && d >= -liveness.StartSlack
}

// operatorUID reports whether a peer outside every owner's tree runs as
// the coordinator's user or root.
func operatorUID(p gate.Peer) (bool, error) {
	if uid := uint32(os.Geteuid()); p.UID != uid && p.UID != 0 {
		return false, fmt.Errorf("pid %d runs as uid %d, not the coordinator's uid %d", p.PID, p.UID, uid)
	}
	return true, nil
}

// noteRoot indexes an owner's root process for matchRoots. Call with c.mu
// held. Entries of owners registered again elsewhere stay until they are
// looked up, where the owner's current record decides.
func (c *Coordinator) noteRoot(o *owner) {
	r := c.rootOf(o)
	if r.PID <= 0 || r.StartTime == 0 || slices.Contains(c.roots[r.PID], o.Name) {
		return
	}
	c.roots[r.PID] = append(c.roots[r.PID], o.Name)
}

// actAs returns nil when the caller may act as owner name: a trusted
// caller or an operator as anyone, an owner's process as its own owners
// only. Otherwise an OWNER_MISMATCH denial naming the real owner.
func (cl caller) actAs(name string) error {
	switch {
	case cl.trusted, cl.operator, slices.Contains(cl.owners, name):
		return nil
	case cl.busy:
		return cl.notYet()
	case cl.unknown != nil:
		return &gate.DeniedError{Reason: gate.ReasonOwnerMismatch, Message: fmt.Sprintf("cannot act as %s: %v", name, cl.unknown)}
	}
	return &gate.DeniedError{Reason: gate.ReasonOwnerMismatch, Message: fmt.Sprintf(
		"cannot act as %s: this process (pid %d) runs under owner %s (root pid %d, SO_PEERCRED and /proc ancestry); it acts only as %s",
		name, cl.peer.PID, cl.owners[0], cl.root, strings.Join(cl.owners, " or "))}
}

// admin returns nil when the caller may do an operator's act (evict,
// resolve): a trusted caller or an operator. A process inside an owner's
// tree is refused whatever token it shows.
func (cl caller) admin(what string) error {
	switch {
	case cl.trusted, cl.operator:
		return nil
	case cl.busy:
		return cl.notYet()
	case cl.unseen:
		// The operator's shell is on the host and the coordinator in a
		// worker's pid namespace: without the way in, the blocker's
		// resolve commands would be refused with no way out but waiting
		// for the namespace to end.
		return &gate.DeniedError{Reason: gate.ReasonAdminRequired, Message: fmt.Sprintf(
			"%s is an operator's act: %v; an operator acts from inside that namespace: %s --wdns=%s leasegate %s ... (PID: the coordinator's, as `leasegate status` names it here)",
			what, cl.unknown, cl.nsEnter, cl.nsRoot, what)}
	case cl.unknown != nil:
		return &gate.DeniedError{Reason: gate.ReasonAdminRequired, Message: fmt.Sprintf("%s is an operator's act: %v", what, cl.unknown)}
	}
	return &gate.DeniedError{Reason: gate.ReasonAdminRequired, Message: fmt.Sprintf(
		"%s is an operator's act, and this process (pid %d) runs under owner %s (root pid %d, SO_PEERCRED and /proc ancestry): no token changes that",
		what, cl.peer.PID, cl.owners[0], cl.root)}
}

// notYet is the answer to a caller not identified for want of resources:
// no denial, which would fail its write for good, but an internal error
// (HTTP 500) that its client retries, a held write waiting meanwhile.
func (cl caller) notYet() error {
	return fmt.Errorf("cannot identify the caller for now, try again: %w", cl.unknown)
}

// record is what the ledger keeps of an operator's act: the operator's
// process, or nil for an owner acting as itself and for trusted callers.
func (cl caller) record() *gate.Operator {
	if !cl.operator {
		return nil
	}
	var comm string
	if cl.comm != nil {
		comm = cl.comm()
	}
	return &gate.Operator{PID: cl.peer.PID, Comm: comm, UID: cl.hostUID, Source: "SO_PEERCRED"}
}

// stamp marks every event of an act with the operator who did it.
func stamp(evs []gate.Event, by *gate.Operator) {
	if by == nil {
		return
	}
	for i := range evs {
		evs[i].By = by
	}
}

// mayLease checks an explicit lease operation against the caller: evict
// is an operator's act, every other operation acts as lr.Owner. An
// operator identified by its peer needs no admin token; it is recorded as
// the admin named in the request, or "operator".
func (cl caller) mayLease(lr *leasegate.LeaseRequest) error {
	if lr.Op != gate.OpEvict {
		return cl.actAs(lr.Owner.Name)
	}
	if err := cl.admin("evict"); err != nil {
		return err
	}
	if cl.operator && lr.Admin == "" {
		lr.Admin = "operator"
	}
	return nil
}

// mayRegister checks a registration against the caller. Besides the names
// it may act as, a process inside an owner's tree may register a name no
// one has used (a nested run, an agent's new session): that can take over
// nobody's leases. Call with c.mu held.
func (c *Coordinator) mayRegister(cl caller, name string) error {
	err := cl.actAs(name)
	fresh := c.owners[name] == nil && len(c.table.ByOwner(name)) == 0
	if err == nil || (cl.unknown != nil && !cl.unseen) || !fresh {
		return err
	}
	return nil
}

// Whoami says who the caller of ctx is.
func (c *Coordinator) Whoami(ctx context.Context) (leasegate.CallerView, error) {
	cl := c.callerOf(ctx)
	v := leasegate.CallerView{Owners: cl.owners, RootPID: cl.root, Operator: cl.operator || cl.trusted}
	if !cl.trusted {
		v.Peer = &cl.peer
	}
	if cl.unknown != nil {
		v.Unidentified = cl.unknown.Error()
	}
	return v, nil
}
