package etcd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasegate/leasegate/store"
)

// A writer's session is an etcd lease of SessionTTL, kept alive while the
// ledger is open, under which it keeps its member key
// (PREFIX/members/<host>/<lease id>, the model of client/v3/concurrency's
// Session). Every commit rewrites that key with the lease, so a writer
// whose session expired (it was cut off or paused for longer than the TTL)
// commits nothing until it has a new one: its commit fails as a lost race
// and it catches up first, seeing whatever the others did meanwhile. A
// member key that expires tells the others that its host's coordinator is
// gone (HostsGone).

// startSession grants a new lease, writes the member key under it and
// keeps it alive until the ledger closes. Call with commitMu held (or
// before the committer runs).
func (l *Ledger) startSession(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, l.cfg.DialTimeout)
	defer cancel()
	g, err := l.cli.Grant(ctx, int64(l.cfg.SessionTTL.Seconds()))
	if err != nil {
		return fmt.Errorf("etcd session (lease of %v): %w", l.cfg.SessionTTL, err)
	}
	key := l.keys.member(l.cfg.Host, int64(g.ID))
	if _, err := l.cli.Put(ctx, key, l.cfg.Host, clientv3.WithLease(g.ID)); err != nil {
		return fmt.Errorf("etcd session member key %s: %w", key, err)
	}
	kctx, stop := context.WithCancel(l.ctx)
	alive, err := l.cli.KeepAlive(kctx, g.ID)
	if err != nil {
		stop()
		return fmt.Errorf("keep the etcd session alive: %w", err)
	}
	ttl := time.Duration(g.TTL) * time.Second
	l.lease, l.memberKey = g.ID, key
	l.started(g.ID, time.Now().Add(trusted(ttl)))
	go l.keep(g.ID, ttl, alive, stop)
	l.log.Info("etcd session started", "lease", fmt.Sprintf("%x", int64(g.ID)), "ttl", l.cfg.SessionTTL, "member", key)
	return nil
}

// sessionOp is the commit's proof of a live session.
func (l *Ledger) sessionOp() clientv3.Op {
	return clientv3.OpPut(l.memberKey, l.cfg.Host, clientv3.WithLease(l.lease))
}

// sessionLost handles a commit refused because the session's lease is
// gone: it starts a new session and fails the commit as a lost race.
func (l *Ledger) sessionLost(first uint64, cause error) error {
	l.log.Warn("etcd session lost: nothing is committed until the table has caught up", "lease", fmt.Sprintf("%x", int64(l.lease)), "error", cause)
	l.lapsed(l.lease)
	if err := l.startSession(l.ctx); err != nil {
		l.log.Error("no new etcd session yet", "error", err)
	}
	l.conflict = &ConflictError{Seen: first - 1, SessionLost: true}
	return l.conflict
}

func isLeaseGone(err error) bool {
	return errors.Is(err, rpctypes.ErrLeaseNotFound) || strings.Contains(err.Error(), rpctypes.ErrLeaseNotFound.Error())
}

// HostsGone sends each of known that has no session left when it is
// called (its coordinators ended before this one started), then the host
// of every session that ends (its lease expired or was revoked) while no
// other session of the same host is left; never this ledger's own host.
// The sessions are read and then watched from that revision on, so no end
// falls between the two. The channel closes when ctx ends or the ledger is
// closed.
func (l *Ledger) HostsGone(ctx context.Context, known []string) <-chan store.HostGone {
	ch := make(chan store.HostGone)
	go func() {
		defer close(ch)
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(l.ctx, cancel)
		defer stop()
		gone, rev := l.goneOf(ctx, known)
		for _, host := range gone {
			select {
			case ch <- store.HostGone{Host: host, Revision: rev, AtStart: true}:
			case <-ctx.Done():
				return
			}
		}
		opts := []clientv3.OpOption{clientv3.WithPrefix(), clientv3.WithFilterPut()}
		if rev > 0 {
			opts = append(opts, clientv3.WithRev(rev+1))
		}
		for resp := range l.cli.Watch(clientv3.WithRequireLeader(ctx), l.keys.members(), opts...) {
			for _, e := range resp.Events {
				host := l.keys.memberHost(string(e.Kv.Key))
				if host == "" || host == l.cfg.Host || l.hostHasSession(ctx, host) {
					continue
				}
				select {
				case ch <- store.HostGone{Host: host, Revision: e.Kv.ModRevision}:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return ch
}

// goneOf returns the hosts of known, other than this ledger's, with no
// session now, and the revision they were read at (0 when etcd did not
// answer: then none is taken for gone).
func (l *Ledger) goneOf(ctx context.Context, known []string) ([]string, int64) {
	resp, err := l.get(ctx, l.keys.members(), clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		l.log.Warn("reading the sessions of the hosts holding leases failed; only sessions ending from now on are seen", "error", err)
		return nil, 0
	}
	live := map[string]bool{l.cfg.Host: true, "": true}
	for _, kv := range resp.Kvs {
		live[l.keys.memberHost(string(kv.Key))] = true
	}
	var gone []string
	for _, host := range known {
		if !live[host] {
			live[host] = true // sent once
			gone = append(gone, host)
		}
	}
	return gone, resp.Header.Revision
}

func (l *Ledger) hostHasSession(ctx context.Context, host string) bool {
	resp, err := l.get(ctx, l.keys.members()+host+"/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	return err != nil || resp.Count > 0 // unsure: assume it has
}
