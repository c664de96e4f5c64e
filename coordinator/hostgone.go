package coordinator

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
)

// sessionLedger is a shared ledger whose writers hold sessions: it names
// the hosts whose every session ended (store/etcd).
type sessionLedger interface {
	HostsGone(ctx context.Context, known []string) <-chan store.HostGone
}

// reclaimGoneHosts reclaims the auto leases of the owners on every host
// whose coordinators all lost their sessions, until ctx ends: the hosts
// of the table's auto leases whose coordinators were already gone when
// this one started, then every host whose last session ends.
func (c *Coordinator) reclaimGoneHosts(ctx context.Context, s sessionLedger) {
	for g := range s.HostsGone(ctx, c.autoHosts()) {
		ev := goneEvidence(g, c.clock.Now())
		if err := c.reclaimHost(ctx, g.Host, ev); err != nil && ctx.Err() == nil {
			c.log.Error("reclaiming the leases of a host whose coordinator is gone failed", "host", g.Host, "error", err)
		}
	}
}

// goneEvidence says how and when host g was found gone, at found: seen
// ending by the session watch, or found without a session by the read at
// start, when its end had happened already and its time is not known.
func goneEvidence(g store.HostGone, found time.Time) string {
	at := found.UTC().Format(time.RFC3339)
	if g.AtStart {
		return fmt.Sprintf("the coordinator of host %s lost its etcd session before %s: it had none when this coordinator "+
			"read the sessions at start (etcd revision %d); etcd does not record when it ended", g.Host, at, g.Revision)
	}
	return fmt.Sprintf("the coordinator of host %s lost its etcd session (it stopped, or sent no keep-alive within the session TTL): "+
		"its last member key was deleted at etcd revision %d, seen by the session watch at %s", g.Host, g.Revision, at)
}

// autoHosts returns the hosts of the owners holding auto leases.
func (c *Coordinator) autoHosts() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var hosts []string
	for _, name := range c.autoOwners() {
		if ls := c.table.ByOwner(name); len(ls) > 0 && !slices.Contains(hosts, ls[0].Owner.Host) {
			hosts = append(hosts, ls[0].Owner.Host)
		}
	}
	return hosts
}

// reclaimHost reclaims the auto leases of every owner on host, with the
// session's end as evidence; check-outs stay.
func (c *Coordinator) reclaimHost(ctx context.Context, host, evidence string) error {
	_, err := again(ctx, c, func() (int, error) {
		c.mu.Lock()
		now := c.clock.Now()
		v := gate.Liveness{Status: gate.Dead, CheckedAt: now.UTC(), Evidence: []string{evidence}}
		var dones []<-chan error
		for _, name := range c.autoOwners() {
			if ls := c.table.ByOwner(name); len(ls) == 0 || ls[0].Owner.Host != host {
				continue
			}
			done, err := c.reclaim(name, v, now)
			if err != nil {
				c.mu.Unlock()
				return 0, err
			}
			dones = append(dones, done)
		}
		c.mu.Unlock()
		for _, d := range dones {
			if err := durable(ctx, d); err != nil {
				return 0, err
			}
		}
		return len(dones), nil
	})
	return err
}
