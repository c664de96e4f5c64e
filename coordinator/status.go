package coordinator

import (
	"cmp"
	"context"
	"errors"
	"sort"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// maxUngated is how many recent ungated writes status keeps.
const maxUngated = 100

// Status returns a consistent snapshot of the coordinator's state.
func (c *Coordinator) Status(context.Context) (leasegate.Status, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.status(c.shownTokens(c.table.Active()), nil)
	emptyNotNil(&s)
	return s, nil
}

// StatusList is Status with its leases left in the table's compact form,
// for an answer that expands them one at a time as it writes them: the
// copy taken under the lock is about a third of the leases expanded. The
// status's Leases are nil then. Where the ledger numbers grants (a
// shared ledger), a grant not numbered yet shows token 0, which the list
// cannot say: the leases are expanded into Leases as Status does, and the
// list is empty.
func (c *Coordinator) StatusList(context.Context) (leasegate.Status, gate.LeaseList, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.numbers.on {
		s := c.status(c.shownTokens(c.table.Active()), nil)
		emptyNotNil(&s)
		return s, gate.LeaseList{}, nil
	}
	list := c.table.ActiveList()
	s := c.status(nil, &list)
	emptyNotNil(&s)
	s.Leases = nil
	return s, list, nil
}

// status is the coordinator's status holding the active leases ls, or,
// with list set, none but counting the list's. Call with c.mu held.
func (c *Coordinator) status(ls []gate.Lease, list *gate.LeaseList) leasegate.Status {
	now := c.clock.Now()
	s := leasegate.Status{Now: now, LedgerWarning: c.ledgerWarning(), FilesWarning: c.cfg.Descriptors.Warning(), StartedAt: c.startedAt, LastSeq: c.cfg.Ledger.LastSeq(), Leases: ls,
		Blockers: c.annotate(c.book.Open(), now), Ungated: append([]leasegate.UngatedWrite(nil), c.ungated...),
		RetryAfter: c.cfg.Windows.Retry.After, IdleAfter: c.cfg.Windows.Idle.After, Defaults: c.cfg.Windows, PidNS: c.pidNS, WentBack: c.wentBackView(now)}
	counts := map[string]int{}
	for _, l := range ls {
		counts[l.Owner.Name]++
	}
	if list != nil {
		for i := range list.Len() {
			counts[list.HolderName(i)]++
		}
	}
	halted := map[string]string{}
	for _, b := range s.Blockers {
		halted[b.Requester.Name] = cmp.Or(halted[b.Requester.Name], b.ID)
	}
	auto := map[string]bool{}
	for _, name := range c.autoOwners() {
		auto[name] = true
	}
	for _, o := range c.owners {
		if o.gone && counts[o.Name] == 0 {
			continue
		}
		// A holder is shown as the liveness check judges it, so a quiet
		// one after a restart says when its leases will be reclaimed.
		v := c.cfg.Liveness.Evaluate(c.subjectOf(o.Name, auto[o.Name]), now)
		s.Owners = append(s.Owners, leasegate.OwnerView{Owner: o.Owner, SeenPID: o.seenPID(), RegisteredAt: o.registeredAt, LastHeartbeat: o.lastHeartbeat,
			LastActivity: o.lastActivity, StoppedAt: o.stoppedAt, StoppedBy: string(o.stoppedBy), Windows: c.windowsOf(o.Name),
			Liveness: v, Leases: counts[o.Name], HaltedBy: halted[o.Name]})
	}
	sort.Slice(s.Owners, func(i, j int) bool { return s.Owners[i].Name < s.Owners[j].Name })
	for _, con := range c.contentions {
		if con.view.Outcome == leasegate.Contended {
			s.Contentions = append(s.Contentions, con.view)
		}
	}
	sort.Slice(s.Contentions, func(i, j int) bool { return s.Contentions[i].ID < s.Contentions[j].ID })
	return s
}

// emptyNotNil makes the lists that have nothing empty rather than nil:
// `[]` in JSON, never `null`.
func emptyNotNil(s *leasegate.Status) {
	s.Owners = nonNil(s.Owners)
	s.Leases = nonNil(s.Leases)
	s.Contentions = nonNil(s.Contentions)
	s.Blockers = nonNil(s.Blockers)
	s.Ungated = nonNil(s.Ungated)
}

// nonNil is l, or an empty list when l is nil.
func nonNil[T any](l []T) []T {
	if l == nil {
		return []T{}
	}
	return l
}

// Blockers returns blocker reports: open ones, or all with all set.
func (c *Coordinator) Blockers(_ context.Context, all bool) ([]blocker.Report, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if all {
		return nonNil(c.annotate(c.book.All(), c.clock.Now())), nil
	}
	return nonNil(c.annotate(c.book.Open(), c.clock.Now())), nil
}

// Blocker returns one blocker report.
func (c *Coordinator) Blocker(_ context.Context, id string) (blocker.Report, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.book.Get(id)
	if !ok {
		return blocker.Report{}, &gate.DeniedError{Reason: gate.ReasonNotFound, Message: "no blocker " + id}
	}
	return c.annotate([]blocker.Report{r}, c.clock.Now())[0], nil
}

// History returns the audit trail from the ledger: every event touching
// the lease id or the path (all events when both are empty), oldest first,
// at most limit (0 = no limit, keeping the newest).
func (c *Coordinator) History(ctx context.Context, id gate.LeaseID, path string, limit int) ([]gate.Event, error) {
	if err := c.w.caughtUp(ctx); err != nil {
		return nil, err
	}
	out := []gate.Event{}
	leases := map[gate.LeaseID]bool{} // leases whose scope covered path
	err := c.cfg.Ledger.Replay(ctx, 0, func(e gate.Event) error {
		if e.Type == gate.EventGranted && path != "" && c.cfg.Folding.Touches(&e, gate.NoLease, path) {
			leases[e.Lease.ID] = true
		}
		if (id == gate.NoLease && path == "") || c.cfg.Folding.Touches(&e, id, path) || leases[e.LeaseID] {
			out = append(out, e)
			if limit > 0 && len(out) > 2*limit {
				out = append(out[:0], out[len(out)-limit:]...)
			}
		}
		return nil
	})
	if limit > 0 && len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out, err
}

// Events calls fn for every committed event with Seq > after, oldest
// first, reading the ledger from there (not from its start); with follow
// it goes on with each event as it is committed until ctx ends. It stops
// at fn's first error, and with ErrFellBehind when a follower falls more
// than followBuffer events behind.
func (c *Coordinator) Events(ctx context.Context, after uint64, follow bool, fn func(gate.Event) error) error {
	var live <-chan gate.Event
	if follow {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx) // ends the subscription with the call
		defer cancel()
		// Subscribed before the backlog is read, so that no event
		// committed meanwhile falls between the two.
		live = c.Subscribe(ctx, followBuffer)
	}
	if err := c.w.caughtUp(ctx); err != nil {
		return err
	}
	last := after
	var err error
	// A follower that has seen every committed event (a sidecar
	// reconnecting) needs no read: on a shared ledger it would wait for an
	// unreachable etcd and end the stream, though the events to come
	// reach it through live.
	if live == nil || after < c.cfg.Ledger.LastSeq() {
		err = c.cfg.Ledger.Replay(ctx, after, func(e gate.Event) error {
			last = e.Seq
			return fn(e)
		})
	}
	if err != nil || live == nil {
		return err
	}
	for e := range live {
		if e.Seq <= last {
			continue // already passed on from the backlog
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	return ErrFellBehind
}

// followBuffer is how many committed events a follower of Events may lag
// behind before it is cut off: enough for a burst of decisions, small
// enough that a stalled reader does not hold the coordinator's memory.
const followBuffer = 1024

// ErrFellBehind ends Events when its follower fell more than followBuffer
// events behind; it may follow again from the last event it saw.
var ErrFellBehind = errors.New("event follower fell behind")

// ReportUngated records a write no sidecar gated. When the path is leased,
// the collision is recorded in the ledger as well. The path is a file's
// name, recorded as the pattern naming it alone (gate.Literal).
func (c *Coordinator) ReportUngated(ctx context.Context, w leasegate.UngatedWrite) error {
	cp, err := gate.CleanPath(gate.Literal(w.Path))
	if err != nil {
		return gate.AsDenied(err)
	}
	w.Path = cp
	c.mu.Lock()
	now := c.clock.Now()
	w.At = now
	if w.Rule {
		done, err := c.recordRuleChange(w, now)
		c.mu.Unlock()
		if err != nil {
			return err
		}
		return durable(ctx, done)
	}
	if ls := c.table.Overlapping(gate.Scope{Type: gate.ScopeFile, Paths: []string{cp}}); len(ls) > 0 && !ls[0].HeldBy(w.Reporter) {
		w.Lease = &ls[0]
	}
	done, err := c.recordUngated(w, now)
	c.mu.Unlock()
	if err == nil {
		err = durable(ctx, done)
	}
	if err != nil {
		return err
	}
	c.logUngated(w)
	return nil
}

// recordUngated keeps an ungated write for status and the ledger. One the
// ledger refuses (degraded on a full disk) is still kept for status,
// marked as not recorded: the write happened whether or not the ledger
// can say so. Call with c.mu held.
func (c *Coordinator) recordUngated(w leasegate.UngatedWrite, now time.Time) (<-chan error, error) {
	ev := gate.Event{Type: gate.EventUngatedWrite, At: now, Actor: w.Reporter, Path: w.Path, Reason: w.Op}
	if w.Lease != nil {
		ev.LeaseID = w.Lease.ID
	}
	done, err := c.commit([]gate.Event{ev})
	w.NotRecorded = err != nil
	c.ungated = append(c.ungated, w)
	if len(c.ungated) > maxUngated {
		c.ungated = c.ungated[len(c.ungated)-maxUngated:]
	}
	return done, err
}

// logUngated logs an ungated write once the ledger has recorded it. A
// write the ledger refused is not logged one line each: on a full disk a
// worker writing thousands of files would fill with log lines the room
// the ledger needs to recover, and the refusal is logged once instead.
func (c *Coordinator) logUngated(w leasegate.UngatedWrite) {
	if w.Lease != nil {
		c.log.Warn("ungated write collided with a lease", "path", w.Path, "holder", w.Lease.Owner.Name)
		return
	}
	c.log.Info("ungated write", "path", w.Path, "op", w.Op)
}

// ungatedGrace is how long after a lease ends a change of its path is
// still taken for the holder's (the watcher's events trail the syscalls).
const ungatedGrace = 5 * time.Second

// ObserveChange judges a change the workspace watcher saw on a gated
// path: when no lease covers the path and none ended there within the
// grace period, no gate saw the write, and it is recorded as ungated. A
// path covered only by a check-out is recorded too, naming the lease:
// the holder may have written it (a check-out gates no process), or
// anyone else; an auto lease means a gate granted its holder the write,
// and so does a grant of the path under its writer's own check-out within
// the grace period. Each change taken for such a grant extends it, so the
// later events of one long write stay the holder's. A change it cannot
// record is logged here, once until a record succeeds again.
func (c *Coordinator) ObserveChange(ctx context.Context, path, op string) error {
	path = gate.Literal(path) // the name of one file, matched as leases hold it
	c.mu.Lock()
	now := c.clock.Now()
	checkout, covered := c.watchedCover(path)
	if covered || c.ended.covers(path, now) {
		c.mu.Unlock()
		return nil
	}
	if c.gatedIn.covers(path, now) {
		c.gatedIn.note(path, now)
		c.mu.Unlock()
		return nil
	}
	c.ended.note(path, now) // one report per path per grace period
	w := leasegate.UngatedWrite{Path: path, At: now, Op: op, Reporter: "watcher", Lease: checkout}
	done, err := c.recordUngated(w, now)
	c.mu.Unlock()
	if err := c.loggedRecord(ctx, "ungated write not recorded", done, err, "path", path); err != nil {
		return err
	}
	c.logUngated(w)
	return nil
}

// loggedRecord waits for a watcher's record to be durable and logs a
// failure, once in a row per kind: the watcher sees every write of a
// worker that goes on writing while the ledger refuses them.
func (c *Coordinator) loggedRecord(ctx context.Context, what string, done <-chan error, err error, kv ...any) error {
	if err == nil {
		err = durable(ctx, done)
	}
	switch {
	case err == nil:
		c.refusals.done(what)
	case ctx.Err() == nil:
		c.refused(what, what, err, kv...)
	}
	return err
}

// watchedCover returns the check-out lease covering path when only
// check-outs cover it, and whether an auto lease does. Call with c.mu
// held.
func (c *Coordinator) watchedCover(path string) (*gate.Lease, bool) {
	var checkout *gate.Lease
	for _, l := range c.table.Overlapping(gate.Scope{Type: gate.ScopeFile, Paths: []string{path}}) {
		if l.Kind != gate.KindCheckout {
			return nil, true
		}
		if checkout == nil {
			checkout = &l
		}
	}
	return checkout, false
}

// ObserveLoss records that the workspace watcher lost events (the kernel's
// queue overflowed): writes anywhere in the workspace may have gone
// unseen. It is recorded as an ungated write of "." with op "overflow", at
// most once per grace period however many overflows come in a burst.
func (c *Coordinator) ObserveLoss(ctx context.Context) error {
	c.mu.Lock()
	now := c.clock.Now()
	if !c.lastLoss.IsZero() && now.Sub(c.lastLoss) < ungatedGrace {
		c.mu.Unlock()
		return nil
	}
	c.lastLoss = now
	done, err := c.recordUngated(leasegate.UngatedWrite{Path: ".", At: now, Op: "overflow", Reporter: "watcher"}, now)
	c.mu.Unlock()
	return c.loggedRecord(ctx, "lost watch events not recorded", done, err)
}

// ObserveUnwatched records that the workspace watcher could not watch the
// directory rel, nor those it left unwatched after it (a watch limit was
// met): writes there go unseen. It is recorded as an ungated write of rel
// with op "unwatched", so that status says so and not only the log.
func (c *Coordinator) ObserveUnwatched(ctx context.Context, rel string) error {
	c.mu.Lock()
	now := c.clock.Now()
	done, err := c.recordUngated(leasegate.UngatedWrite{Path: rel, At: now, Op: "unwatched", Reporter: "watcher"}, now)
	c.mu.Unlock()
	return c.loggedRecord(ctx, "unwatched directory not recorded", done, err, "path", rel)
}

// noteEnded remembers the paths of a lease that just ended. Call with
// c.mu held.
func (c *Coordinator) noteEnded(id gate.LeaseID, now time.Time) {
	if l, ok := c.table.Lease(id); ok {
		for _, p := range l.Scope.Paths {
			c.ended.note(p, now)
		}
	}
}

// Busy reports whether any owner is registered and not gone, or any
// lease is active: an idle coordinator may stop itself.
func (c *Coordinator) Busy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.table.ActiveCount() > 0 {
		return true
	}
	for _, h := range c.held {
		if h.resolvedAt.IsZero() {
			return true
		}
	}
	for _, o := range c.owners {
		if !o.gone {
			return true
		}
	}
	return false
}
