package etcd_test

import (
	"context"
	"errors"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store/etcd"
)

// TestSessionLost ends host-a's session (its etcd lease revoked, as an
// expiry would): host-b is told host-a is gone, and host-a commits nothing
// until it has caught up with a new session.
func TestSessionLost(t *testing.T) {
	cfg := testConfig(t)
	cfgA, cfgB := cfg, cfg
	cfgA.Host, cfgB.Host = "host-a", "host-b"
	a, b := mustOpen(t, cfgA), mustOpen(t, cfgB)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	gone := b.HostsGone(ctx, nil)
	cli := etcdClient(t, cfg)
	resp, err := cli.Get(ctx, "/leasegate/"+cfg.Workspace+"/members/host-a/", clientv3.WithPrefix())
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("host-a's member keys = %v, %v; want one", resp, err)
	}
	revoked, err := cli.Revoke(ctx, clientv3.LeaseID(resp.Kvs[0].Lease))
	if err != nil {
		t.Fatal(err)
	}
	select {
	case g := <-gone:
		if g.Host != "host-a" || g.AtStart || g.Revision != revoked.Header.Revision {
			t.Fatalf("HostsGone sent %+v, want host-a, seen by the watch at the revoke's revision %d", g, revoked.Header.Revision)
		}
	case <-ctx.Done():
		t.Fatal("host-b was never told host-a's session ended")
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
