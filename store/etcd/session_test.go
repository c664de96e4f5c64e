package etcd_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store/etcd"
)

// TestSessionLost ends two sessions (their etcd leases revoked, as an
// expiry would). host-c's, whose coordinator is not there to start
// another: host-b is told host-c is gone, at the revoke's revision.
// host-a's, a running writer: it commits nothing until it has caught up
// with a new session. (Whether host-b is told of host-a depends on which
// comes first, host-a's new session or host-b's look at it: a host with a
// session is not gone.)
func TestSessionLost(t *testing.T) {
	cfg := testConfig(t)
	cfgA, cfgB := cfg, cfg
	cfgA.Host, cfgB.Host = "host-a", "host-b"
	a, b := mustOpen(t, cfgA), mustOpen(t, cfgB)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cli := etcdClient(t, cfg)
	members := "/leasegate/" + cfg.Workspace + "/members/"
	c, err := cli.Grant(ctx, 60)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Put(ctx, fmt.Sprintf("%shost-c/%x", members, int64(c.ID)), "host-c", clientv3.WithLease(c.ID)); err != nil {
		t.Fatal(err)
	}
	// HostsGone reads the sessions and then watches from there, in the
	// background: the revoke falls after the read (the watch sees it) or
	// before it (host-c, known, is sent as gone at start).
	gone := b.HostsGone(ctx, []string{"host-c"})
	revoked, err := cli.Revoke(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case g := <-gone:
		rev := revoked.Header.Revision
		if g.Host != "host-c" || !g.AtStart && g.Revision != rev || g.AtStart && g.Revision < rev {
			t.Fatalf("HostsGone sent %+v, want host-c, seen by the watch at the revoke's revision %d or read as gone after it", g, rev)
		}
	case <-ctx.Done():
		t.Fatal("host-b was never told host-c's session ended")
	}

	resp, err := cli.Get(ctx, members+"host-a/", clientv3.WithPrefix())
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("host-a's member keys = %v, %v; want one", resp, err)
	}
	if _, err := cli.Revoke(ctx, clientv3.LeaseID(resp.Kvs[0].Lease)); err != nil {
		t.Fatal(err)
	}
	_, err = a.Append(ctx, note("a"))
	var ce *etcd.ConflictError
	if !errors.As(err, &ce) || !ce.SessionLost {
		t.Fatalf("Append after the session ended = %v, want a *ConflictError with SessionLost", err)
	}
	if err := a.CatchUp(ctx, func(gate.Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if got, err := a.Append(ctx, note("a")); err != nil || got[0].Seq != 1 {
		t.Fatalf("Append with a new session = %v, %v, want seq 1", got, err)
	}
}

// TestHostsGoneAlready: of the known hosts, the one with no session when
// HostsGone is called is sent at once; this ledger's own host and a host
// with a live session are not.
func TestHostsGoneAlready(t *testing.T) {
	cfg := testConfig(t)
	cfgA, cfgB := cfg, cfg
	cfgA.Host, cfgB.Host = "host-a", "host-b"
	mustOpen(t, cfgA)
	b := mustOpen(t, cfgB)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	gone := b.HostsGone(ctx, []string{"host-a", "host-b", "host-c", "host-c"})
	select {
	case g := <-gone:
		if g.Host != "host-c" || !g.AtStart || g.Revision == 0 {
			t.Fatalf("HostsGone sent %+v first, want host-c (no session) found at start with the read's revision", g)
		}
	case <-ctx.Done():
		t.Fatal("host-c, with no session, was never sent")
	}
	short, stop := context.WithTimeout(ctx, 500*time.Millisecond)
	defer stop()
	select {
	case g, ok := <-gone:
		if ok {
			t.Fatalf("HostsGone sent %+v too, want only host-c", g)
		}
	case <-short.Done():
	}
}

// TestSessionRenewed: when host-a's lease is revoked while nothing is
// committed, the keep-alive ends; host-a's ledger reports the session lost
// and starts a new one by itself, and commits nothing until it has caught
// up.
func TestSessionRenewed(t *testing.T) {
	cfg := testConfig(t)
	cfg.Host = "host-a"
	a := mustOpen(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	first, err := a.Session()
	if err != nil {
		t.Fatalf("Session after Open = %v", err)
	}
	cli := etcdClient(t, cfg)
	resp, err := cli.Get(ctx, "/leasegate/"+cfg.Workspace+"/members/host-a/", clientv3.WithPrefix())
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("host-a's member keys = %v, %v; want one", resp, err)
	}
	if _, err := cli.Revoke(ctx, clientv3.LeaseID(resp.Kvs[0].Lease)); err != nil {
		t.Fatal(err)
	}
	for {
		if gen, err := a.Session(); err == nil && gen > first {
			break
		}
		select {
		case <-a.SessionChanged():
		case <-ctx.Done():
			t.Fatal("host-a never started a new session after its lease was revoked")
		}
	}
	_, err = a.Append(ctx, note("a"))
	var ce *etcd.ConflictError
	if !errors.As(err, &ce) || !ce.SessionLost {
		t.Fatalf("Append after a new session, before catching up = %v, want a *ConflictError with SessionLost", err)
	}
	if err := a.CatchUp(ctx, func(gate.Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Append(ctx, note("a")); err != nil {
		t.Fatalf("Append after catching up = %v", err)
	}
}
