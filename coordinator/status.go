package coordinator

import (
	"context"
	"sort"
	"time"

	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
)

// maxUngated is how many recent ungated writes status keeps.
const maxUngated = 100

// UngatedWrite is a change seen on disk that no sidecar gated, reported
// with the lease it collided with, if any.
type UngatedWrite struct {
	Path     string      `json:"path"`
	At       time.Time   `json:"at"`
	Op       string      `json:"op"`
	Reporter string      `json:"reporter,omitempty"` // who noticed: watcher, hook session
	Lease    *gate.Lease `json:"collided_with,omitempty"`
}

// Status is everything `leasegate status` shows.
type Status struct {
	Now         time.Time        `json:"now"`
	StartedAt   time.Time        `json:"started_at"`
	LastSeq     uint64           `json:"last_seq"`
	Owners      []OwnerView      `json:"owners"`
	Leases      []gate.Lease     `json:"leases"`
	Contentions []ContentionView `json:"contentions"`
	Blockers    []blocker.Report `json:"blockers"`
	Ungated     []UngatedWrite   `json:"ungated"`
	RetryAfter  time.Duration    `json:"retry_after_ns"`
	IdleAfter   time.Duration    `json:"idle_after_ns"`
}

// Status returns a consistent snapshot of the coordinator's state.
func (c *Coordinator) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now()
	s := Status{Now: now, StartedAt: c.startedAt, LastSeq: c.table.LastSeq(), Leases: c.table.Active(),
		Blockers: c.book.Open(), Ungated: append([]UngatedWrite(nil), c.ungated...),
		RetryAfter: c.cfg.RetryAfter, IdleAfter: c.cfg.IdleAfter}
	counts := map[string]int{}
	for _, l := range s.Leases {
		counts[l.Owner.Name]++
	}
	for _, o := range c.owners {
		if o.gone && counts[o.Name] == 0 {
			continue
		}
		v := c.cfg.Liveness.Evaluate(liveness.Subject{Owner: o.Owner, LastHeartbeat: o.lastHeartbeat}, now)
		s.Owners = append(s.Owners, OwnerView{Owner: o.Owner, RegisteredAt: o.registeredAt, LastHeartbeat: o.lastHeartbeat,
			LastActivity: o.lastActivity, StoppedAt: o.stoppedAt, Liveness: v, Leases: counts[o.Name]})
	}
	sort.Slice(s.Owners, func(i, j int) bool { return s.Owners[i].Name < s.Owners[j].Name })
	for _, con := range c.contentions {
		if con.view.Outcome == Contended {
			s.Contentions = append(s.Contentions, con.view)
		}
	}
	sort.Slice(s.Contentions, func(i, j int) bool { return s.Contentions[i].ID < s.Contentions[j].ID })
	return s
}

// Blockers returns blocker reports: open ones, or all with all set.
func (c *Coordinator) Blockers(all bool) []blocker.Report {
	c.mu.Lock()
	defer c.mu.Unlock()
	if all {
		return c.book.All()
	}
	return c.book.Open()
}

// Blocker returns one blocker report.
func (c *Coordinator) Blocker(id string) (blocker.Report, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.book.Get(id)
}

// History returns the audit trail from the ledger: every event touching
// the lease id or the path (all events when both are empty), oldest first,
// at most limit (0 = no limit, keeping the newest).
func (c *Coordinator) History(ctx context.Context, id gate.LeaseID, path string, limit int) ([]gate.Event, error) {
	var out []gate.Event
	leases := map[gate.LeaseID]bool{} // leases whose scope covered path
	err := c.cfg.Ledger.Replay(ctx, 0, func(e gate.Event) error {
		if e.Type == gate.EventGranted && path != "" && e.Touches(gate.NoLease, path) {
			leases[e.Lease.ID] = true
		}
		if (id == gate.NoLease && path == "") || e.Touches(id, path) || leases[e.LeaseID] {
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

// ReportUngated records a write no sidecar gated. When the path is leased,
// the collision is recorded in the ledger as well.
func (c *Coordinator) ReportUngated(ctx context.Context, w UngatedWrite) error {
	cp, err := gate.CleanPath(w.Path)
	if err != nil {
		return &gate.DeniedError{Reason: gate.ReasonInputInvalid, Message: err.Error()}
	}
	w.Path = cp
	c.mu.Lock()
	now := c.clock.Now()
	w.At = now
	if ls := c.table.Overlapping(gate.Scope{Type: gate.ScopeFile, Paths: []string{cp}}); len(ls) > 0 && !ls[0].HeldBy(w.Reporter) {
		w.Lease = &ls[0]
	}
	c.ungated = append(c.ungated, w)
	if len(c.ungated) > maxUngated {
		c.ungated = c.ungated[len(c.ungated)-maxUngated:]
	}
	done := closedNil()
	if w.Lease != nil {
		c.log.Warn("ungated write collided with a lease", "path", cp, "holder", w.Lease.Owner.Name)
		done, err = c.commit([]gate.Event{{Type: gate.EventUngatedWrite, At: now, Actor: w.Reporter, Path: cp, LeaseID: w.Lease.ID, Reason: w.Op}})
	}
	c.mu.Unlock()
	if err != nil {
		return err
	}
	return durable(ctx, done)
}

// Owners reports whether any owner is registered and not gone, or any
// lease is active: an idle coordinator may stop itself.
func (c *Coordinator) Busy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.table.ActiveCount() > 0 || len(c.held) > 0 {
		return true
	}
	for _, o := range c.owners {
		if !o.gone {
			return true
		}
	}
	return false
}
