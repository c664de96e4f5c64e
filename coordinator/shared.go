package coordinator

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
)

// raceAttempts bounds how often Lease and Mutate decide again after a lost
// race before they give up with ErrRaced; before each new attempt they
// wait a random time up to raceBackoff times the attempts so far (at most
// raceBackoffMax), so that two coordinators busy at once take turns.
const (
	raceAttempts   = 64
	raceBackoff    = time.Millisecond
	raceBackoffMax = 50 * time.Millisecond
)

// sharedLedger is a ledger other coordinators append to as well
// (store/etcd): it refuses an append decided without their events
// (store.ErrConflict), hands them over with CatchUp, signals on Changes
// when there may be some and tells with Behind whether there may be.
type sharedLedger interface {
	CatchUp(ctx context.Context, fn func(gate.Event) error) error
	Reload(ctx context.Context, after uint64, fn func(gate.Event) error) error
	Changes(ctx context.Context) <-chan struct{}
	Behind() bool
}

func (c *Coordinator) shared() (sharedLedger, bool) {
	s, ok := c.cfg.Ledger.(sharedLedger)
	return s, ok
}

// unreachable is a shared ledger that can tell, without a request, that
// its cluster cannot be reached now (store/etcd can).
type unreachable interface {
	Unreachable() error
}

// followRetry is how long a failed catch-up waits before it is tried
// again, unless the ledger reports a change first: short enough that the
// table is current soon after etcd is back, long enough that an outage
// costs nothing.
const followRetry = time.Second

// follow keeps the table current with the other coordinators' commits
// until ctx ends. A catch-up that fails is tried again after followRetry
// (the watch that reports changes may be up again before the cluster
// answers reads); the failure is logged once, and the recovery. Once
// caught up it records that the ledger went back, if it did (wentback.go).
func (c *Coordinator) follow(ctx context.Context, s sharedLedger) {
	changes := s.Changes(ctx)
	var retry <-chan time.Time
	failing := false
	for {
		select {
		case _, ok := <-changes:
			if !ok {
				return
			}
		case <-retry:
		case <-c.wentBackNudge:
		}
		retry = nil
		err := c.sync(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			if !failing {
				c.log.Warn("catching up with the shared ledger failed; trying again every second and at its next change", "error", err)
			}
			failing, retry = true, c.clock.After(followRetry)
		case err == nil && failing:
			c.log.Info("caught up with the shared ledger again")
			failing = false
		}
		if err == nil && !c.recordWentBack(ctx) {
			retry = c.clock.After(followRetry)
		}
	}
}

// sync brings in the events other coordinators committed. With nothing of
// its own in flight and no lost race, they are applied to the table as
// they come; otherwise the table holds decisions the ledger refused (or
// will), so table and blocker book are rebuilt from the ledger, unless
// every change the ledger's watch reported was this coordinator's own
// commit (the ledger is not Behind): then there is nothing to bring in,
// and its commits in flight go on.
func (c *Coordinator) sync(ctx context.Context) error {
	s, ok := c.shared()
	if !ok {
		return nil
	}
	if err := c.reachable(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var foreign []gate.Event
	collect := func(e gate.Event) error { foreign = append(foreign, e); return nil }
	var err error
	raced, inflight := c.w.raced.Load(), c.w.inflight.Load() > 0
	if !raced && inflight && !s.Behind() {
		return nil // every change the watch reported was this coordinator's own commit
	}
	if raced || inflight {
		err = c.rebuild(ctx, s, collect)
	} else if err = s.CatchUp(ctx, c.applyForeign(c.foldForeign(collect))); err != nil && !errors.Is(err, context.Canceled) {
		err = c.rebuild(ctx, s, collect)
	}
	c.afterForeign(foreign)
	return err
}

// reachable refuses a catch-up that would wait for the cluster with c.mu
// held, keeping status and every decision waiting too: while the ledger
// has no session (the table is rebuilt under the next one anyway) or says
// its cluster is unreachable.
func (c *Coordinator) reachable() error {
	if k, ok := c.cfg.Ledger.(sessionKeeper); ok {
		if _, err := k.Session(); err != nil {
			return fmt.Errorf("no session on the shared ledger, the table is rebuilt under the next: %w", err)
		}
	}
	if u, ok := c.cfg.Ledger.(unreachable); ok {
		return u.Unreachable()
	}
	return nil
}

// applyForeign applies one event of another coordinator, then passes it on.
func (c *Coordinator) applyForeign(then func(gate.Event) error) func(gate.Event) error {
	return func(e gate.Event) error {
		if err := c.table.Apply(e); err != nil {
			return err
		}
		if err := c.book.Apply(e); err != nil {
			return err
		}
		return then(e)
	}
}

// foldForeign folds one event of another coordinator into the committed
// fold too, then passes it on.
func (c *Coordinator) foldForeign(then func(gate.Event) error) func(gate.Event) error {
	return func(e gate.Event) error {
		c.committed.fold([]gate.Event{e})
		return then(e)
	}
}

// rebuild replaces table and book with the ledger's fold: a clone of the
// committed fold once it has read what was committed after it; what this
// coordinator has queued meanwhile is refused (ErrRaced). Call with c.mu
// held. collect sees the events past what this coordinator had seen.
func (c *Coordinator) rebuild(ctx context.Context, s sharedLedger, collect func(gate.Event) error) error {
	f := c.committed
	f.mu.Lock()
	defer f.mu.Unlock()
	seen := c.cfg.Ledger.LastSeq()
	err := s.Reload(ctx, f.table.LastSeq(), func(e gate.Event) error {
		if err := f.apply(e); err != nil {
			return err
		}
		if e.Seq > seen {
			return collect(e)
		}
		return nil
	})
	if errors.Is(err, store.ErrWentBack) {
		err = c.startOver(ctx, s, err)
	}
	if err != nil {
		return fmt.Errorf("rebuild the lease table from the shared ledger: %w", err)
	}
	c.table, c.book = f.table.Clone(), f.book.Clone()
	c.forgetNumbers()
	c.w.raced.Store(false)
	c.log.Info("lease table rebuilt from the shared ledger", "last-seq", c.cfg.Ledger.LastSeq(), "active-leases", c.table.ActiveCount())
	return nil
}

// startOver folds the committed fold anew from the ledger's first event,
// after the ledger went back (cause): etcd lost events this coordinator
// had read, so the leases and blockers they held are no longer the
// ledger's, and serving them would keep files from owners every other
// coordinator, and a restarted one, takes to be free. It cuts every event
// stream, so that the sidecars drop the leases they cache and ask again,
// and keeps what was lost for status and the ledger's history
// (wentback.go). Call with c.mu and the fold's mu held.
func (c *Coordinator) startOver(ctx context.Context, s sharedLedger, cause error) error {
	c.log.Warn("the shared ledger went back: serving it as etcd holds it now, leases it lost are gone", "error", cause)
	c.hub.closeAll()
	f := c.committed
	before, seen := f.table, f.table.LastSeq()
	f.table, f.book = gate.NewTableFor(c.cfg.Folding), blocker.NewBook()
	recorded := map[gate.LeaseID]bool{}
	err := s.Reload(ctx, 0, func(e gate.Event) error {
		if e.Type == gate.EventLedgerWentBack && e.LeaseID != gate.NoLease {
			recorded[e.LeaseID] = true // another coordinator found it first
		}
		return f.apply(e)
	})
	if err != nil {
		return err
	}
	c.noteWentBack(before, f.table, seen, cause, recorded)
	c.log.Warn("leases the shared ledger lost are gone", "lost", c.wentBack.view.LostCount, "seen-seq", seen, "ends-seq", f.table.LastSeq())
	return nil
}

// afterForeign wakes the writes waiting on leases other coordinators
// ended, answers the held writes of blockers they resolved and publishes
// their events. Call with c.mu held.
func (c *Coordinator) afterForeign(evs []gate.Event) {
	for _, e := range evs {
		if e.Type.EndsLease() {
			c.noteEnded(e.LeaseID, e.At)
			c.wakeWaiters(e)
		}
		if e.Type == gate.EventBlockerResolved {
			c.resolvedElsewhere(e)
		}
		c.noteForeignWentBack(e)
	}
	if len(evs) > 0 {
		c.published(evs)
	}
}

// raced reports whether err is a lost race on the shared ledger.
func raced(err error) bool {
	return errors.Is(err, leasegate.ErrRaced) || errors.Is(err, store.ErrConflict)
}

// again runs op until it does not lose a race on the shared ledger,
// catching up before each new attempt.
func again[T any](ctx context.Context, c *Coordinator, op func() (T, error)) (T, error) {
	res, err := op()
	for i := 1; i < raceAttempts && raced(err); i++ {
		select {
		case <-ctx.Done():
			return res, err
		case <-c.clock.After(rand.N(min(raceBackoff*time.Duration(i), raceBackoffMax))):
		}
		if serr := c.sync(ctx); serr != nil {
			return res, fmt.Errorf("%w: %w", err, serr)
		}
		res, err = op()
	}
	return res, err
}

// Lease carries out an explicit lease operation; see lease.
func (c *Coordinator) Lease(ctx context.Context, lr leasegate.LeaseRequest) (leasegate.LeaseResult, error) {
	return again(ctx, c, func() (leasegate.LeaseResult, error) { return c.lease(ctx, lr) })
}

// Mutate gates one mutation; see mutate.
func (c *Coordinator) Mutate(ctx context.Context, req leasegate.MutateRequest) (leasegate.Result, error) {
	return again(ctx, c, func() (leasegate.Result, error) { return c.mutate(ctx, req) })
}

// Register records an owner; see register.
func (c *Coordinator) Register(ctx context.Context, r leasegate.Registration) error {
	_, err := c.Join(ctx, r)
	return err
}

// Join is Register answering the owner the registrant acts as: with
// r.JoinRoot, the live owner that already has r's root process, when the
// kernel shows the registrant runs inside that process (see joinable).
func (c *Coordinator) Join(ctx context.Context, r leasegate.Registration) (string, error) {
	return again(ctx, c, func() (string, error) { return c.register(ctx, r) })
}

// raceKeyPrefix names the scheduler's entries that decide a retry again.
const raceKeyPrefix = "race/"

// retryRaced decides a retry that lost a race again, once the table has
// caught up: the write stays held meanwhile. Call with c.mu held.
func (c *Coordinator) retryRaced(con *contention) {
	con.races++
	c.byKey[c.mutationKey(con.req.Owner, con.req.Paths)] = con
	id := con.view.ID
	c.log.Debug("retry lost a race with another coordinator; deciding again", "contention", id, "attempt", con.races)
	c.sched.ScheduleRetry(raceKeyPrefix+id, c.clock.Now(), 0, func(time.Time) {
		if err := c.sync(context.Background()); err != nil {
			c.log.Warn("catching up before deciding a retry again failed", "contention", id, "error", err)
		}
		c.retry(id)
	})
}

// judgedHere reports whether this coordinator judges the owner's
// liveness. On a shared ledger owners on other machines are judged by
// their own machine's coordinator. Call with c.mu held.
func (c *Coordinator) judgedHere(name string) bool {
	if _, ok := c.shared(); !ok {
		return true
	}
	ls := c.table.ByOwner(name)
	return len(ls) == 0 || ls[0].Owner.Host == "" || ls[0].Owner.Host == c.host()
}

func (c *Coordinator) host() string {
	if h, ok := c.cfg.Liveness.(interface{ Host() string }); ok && h.Host() != "" {
		return h.Host()
	}
	h, _ := os.Hostname()
	return h
}
