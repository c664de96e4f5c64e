package etcd_test

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasegate/leasegate/internal/etcdtest"
)

// TestCommitSoonAfterTheLeaderIsKilled: the leader of a 3-member cluster
// is killed; the next append is committed within 4 s. It waited for the
// member it was sent to to give the lost proposal up (etcd's request
// timeout, 7 s), though a new leader is elected within about a second.
func TestCommitSoonAfterTheLeaderIsKilled(t *testing.T) {
	requireEtcd(t)
	cluster, err := etcdtest.Start(t.TempDir(), 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Stop)
	cfg := testConfig(t)
	cfg.Endpoints = cluster.Endpoints
	l := mustOpen(t, cfg)
	mustAppend(t, l, note("a"))
	cli, err := clientv3.New(clientv3.Config{Endpoints: cluster.Endpoints})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	leader := -1
	for i, ep := range cluster.Endpoints {
		if st, err := cli.Status(context.Background(), ep); err == nil && st.Leader == st.Header.MemberId {
			leader = i
		}
	}
	if leader < 0 {
		t.Fatal("no member says it is the leader")
	}
	cluster.StopMember(leader)
	start := time.Now()
	mustAppend(t, l, note("a"))
	if took := time.Since(start); took > 4*time.Second {
		t.Fatalf("the append after the leader was killed took %v, want under 4 s", took)
	} else {
		t.Logf("the append after the leader was killed took %v", took.Round(time.Millisecond))
	}
}
