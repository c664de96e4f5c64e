package coordinator

import (
	"context"
	"fmt"
	"time"

	"github.com/leasegate/leasegate"
)

// sessionKeeper is a shared ledger whose writer holds a session
// (store/etcd): Session numbers the current one and fails while there is
// none; SessionChanged signals each loss and each new session.
type sessionKeeper interface {
	Session() (uint64, error)
	// SessionLeft is Session with how long the session is sure to live
	// unless it is renewed.
	SessionLeft() (uint64, time.Duration, error)
	SessionChanged() <-chan struct{}
}

// beat is what a heartbeat of owner name answers about the leases its
// gate caches. The cache is trusted for the owner's stop-idle window from
// when the heartbeat was sent: a sidecar stopped with its worker (kill
// -STOP of the whole job) sends no heartbeat meanwhile, and the stop-idle
// release, which comes at least that window after the stop, may give its
// files to other workers before it runs again; continued, it asks the
// coordinator instead of writing them from memory (in a trial of 30
// workers one did, while another worker held the file). A running
// sidecar beats every 2 s, so under the contract's 30 s its cache always
// answers; a window shorter than that costs round trips, not safety. On a
// shared ledger the cache is also trusted no longer than the session the
// table was loaded under is sure to live, and not at all without one: a
// coordinator paused past that cannot tell its gates, while the others
// reclaim its owners' files once etcd expires the session, which is no
// sooner. Call with c.mu held.
func (c *Coordinator) beat(name string) leasegate.Beat {
	idle := c.windowsOf(name).Idle.After
	s, ok := c.cfg.Ledger.(sessionKeeper)
	if !ok {
		return leasegate.Beat{Bounded: true, TrustFor: idle}
	}
	gen, left, err := s.SessionLeft()
	if err != nil || gen != c.served.Load() {
		return leasegate.Beat{Bounded: true}
	}
	return leasegate.Beat{Bounded: true, TrustFor: min(left, idle), Session: gen}
}

// serving refuses decisions unless the ledger's session is the one the
// table was last loaded under. Call with c.mu held.
func (c *Coordinator) serving() error {
	s, ok := c.cfg.Ledger.(sessionKeeper)
	if !ok {
		return nil
	}
	gen, err := s.Session()
	if err != nil {
		return fmt.Errorf("%w: writes are held until a new one is up and the table reloaded: %w", leasegate.ErrNoSession, err)
	}
	if was := c.served.Load(); gen != was {
		return fmt.Errorf("%w: the table is being reloaded after session %d was lost", leasegate.ErrNoSession, was)
	}
	return nil
}

// keepServing follows the ledger's session until ctx ends. On a loss it
// cuts every event stream, so that the sidecars drop the leases they
// cache (they reconnect and start empty); once a new session is up it
// reloads the table from the ledger and serves again.
func (c *Coordinator) keepServing(ctx context.Context, s sessionKeeper) {
	var retry <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.SessionChanged():
		case <-retry:
		}
		retry = nil
		if !c.sessionCurrent(s) {
			if err := c.resume(ctx, s); err != nil && ctx.Err() == nil {
				c.log.Warn("serving again after the session was lost failed; retrying", "error", err)
				retry = c.clock.After(time.Second)
			}
		}
	}
}

// sessionCurrent reports whether the table was loaded under the live
// session; when not, it cuts the event streams. It takes no c.mu: a
// decision in progress may be waiting for the cluster.
func (c *Coordinator) sessionCurrent(s sessionKeeper) bool {
	gen, err := s.Session()
	was := c.served.Load()
	if err == nil && gen == was {
		return true
	}
	c.hub.closeAll()
	c.log.Warn("no session on the shared lease table: writes are held and sidecars drop their cached leases", "served-session", was, "session", gen, "error", err)
	return false
}

// resume reloads the table under the live session and serves again.
func (c *Coordinator) resume(ctx context.Context, s sessionKeeper) error {
	gen, err := s.Session()
	if err != nil {
		return nil // the next new session signals
	}
	c.w.raced.Store(true) // rebuild from the ledger, not catch up
	if err := c.sync(ctx); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if now, err := s.Session(); err != nil || now != gen {
		return nil // lost again meanwhile: the next change signals
	}
	c.served.Store(gen)
	c.log.Info("serving again on a new session", "session", gen, "active-leases", c.table.ActiveCount())
	return nil
}

// sessionRetry is how long a retry decided without a session waits before
// it is decided again.
const sessionRetry = time.Second

// retryOnSession keeps a retry decided without a session held and decides
// it again a little later. Call with c.mu held.
func (c *Coordinator) retryOnSession(con *contention) {
	c.byKey[c.mutationKey(con.req.Owner, con.req.Paths)] = con
	id := con.view.ID
	c.log.Debug("retry held until the shared lease table has a session again", "contention", id)
	c.sched.ScheduleRetry(raceKeyPrefix+id, c.clock.Now(), sessionRetry, func(time.Time) { c.retry(id) })
}
