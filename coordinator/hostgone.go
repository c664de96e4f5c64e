package coordinator

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// sessionLedger is a shared ledger whose writers hold sessions: it names
// the hosts whose every session ended (store/etcd).
type sessionLedger interface {
	HostsGone(ctx context.Context, known []string) <-chan string
}

// reclaimGoneHosts reclaims the auto leases of the owners on every host
// whose coordinators all lost their sessions, until ctx ends: the hosts
// of the table's auto leases whose coordinators were already gone when
// this one started, then every host whose last session ends.
func (c *Coordinator) reclaimGoneHosts(ctx context.Context, s sessionLedger) {
	for host := range s.HostsGone(ctx, c.autoHosts()) {
		if err := c.reclaimHost(ctx, host); err != nil && ctx.Err() == nil {
			c.log.Error("reclaiming the leases of a host whose coordinator is gone failed", "host", host, "error", err)
		}
	}
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
func (c *Coordinator) reclaimHost(ctx context.Context, host string) error {
	_, err := again(ctx, c, func() (int, error) {
		c.mu.Lock()
		now := c.clock.Now()
		v := gate.Liveness{Status: gate.Dead, CheckedAt: now.UTC(), Evidence: []string{fmt.Sprintf(
			"the coordinator of host %s lost its etcd session (no keep-alive within the session TTL) at %s", host, now.UTC().Format(time.RFC3339))}}
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
