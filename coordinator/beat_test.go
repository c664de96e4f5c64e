package coordinator_test

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// TestHeartbeatBoundsCacheOnSharedLedger: on a shared ledger a heartbeat
// answers how long the coordinator's session is sure to live (at most its
// TTL less the margin) and which session it is; once that session is
// revoked, answers name a new one only after the table was reloaded
// under it, and meanwhile trust nothing.
func TestHeartbeatBoundsCacheOnSharedLedger(t *testing.T) {
	cluster := startCluster(t)
	ctx := context.Background()
	a, _ := sharedCoordinator(t, cluster.Endpoints, "host-a", goneTTL)
	if err := a.Register(ctx, leasegate.Registration{Owner: gate.Owner{Name: "alice", Host: "host-a"}}); err != nil {
		t.Fatal(err)
	}
	first, err := a.Heartbeat(ctx, "alice")
	if err != nil || !first.Bounded || first.TrustFor <= 0 || first.TrustFor > goneTTL-goneTTL/4 || first.Session == 0 {
		t.Fatalf("Heartbeat(alice) = %+v, %v; want bounded by at most %v on a live session", first, err, goneTTL-goneTTL/4)
	}
	revokeSessions(t, cluster.Endpoints, "/leasegate/hosts/members/host-a/")
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := a.Heartbeat(ctx, "alice")
		if err != nil || !b.Bounded || (b.Session == 0) != (b.TrustFor == 0) {
			t.Fatalf("Heartbeat(alice) after the session was revoked = %+v, %v; want bounded, trusting nothing without a session", b, err)
		}
		if b.Session > first.Session {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Heartbeat(alice) = %+v 30 s after session %d was revoked, want a new session", b, first.Session)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// revokeSessions revokes the etcd leases of the member keys under prefix,
// as etcd does when a session expires.
func revokeSessions(t *testing.T, endpoints []string, prefix string) {
	t.Helper()
	cli := etcdClient(t, endpoints)
	resp, err := cli.Get(context.Background(), prefix, clientv3.WithPrefix())
	if err != nil || len(resp.Kvs) == 0 {
		t.Fatalf("member keys under %s: %d, %v", prefix, len(resp.Kvs), err)
	}
	for _, kv := range resp.Kvs {
		if _, err := cli.Revoke(context.Background(), clientv3.LeaseID(kv.Lease)); err != nil {
			t.Fatal(err)
		}
	}
}
