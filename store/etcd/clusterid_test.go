package etcd_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/internal/etcdtest"
	"github.com/leasegate/leasegate/store/etcd"
)

// TestClusterIDAtEveryMember: each member of a 3-member cluster, asked
// alone, reports one cluster id, the whole list's; another cluster's id
// differs.
func TestClusterIDAtEveryMember(t *testing.T) {
	single := requireEtcd(t)
	three, err := etcdtest.Start(t.TempDir(), 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(three.Stop)
	want := mustClusterID(t, three.Endpoints...)
	for _, ep := range three.Endpoints {
		if got := mustClusterID(t, ep); got != want {
			t.Errorf("ClusterID(%s) = %x, want %x (the cluster's)", ep, got, want)
		}
	}
	if other := mustClusterID(t, single.Endpoints...); other == want {
		t.Errorf("ClusterID of two clusters = %x both", want)
	}
}

// TestClusterIDNoneReachable: endpoints that all refuse the connection
// are said at once, with what the dial met, not after the dial timeout.
func TestClusterIDNoneReachable(t *testing.T) {
	start := time.Now()
	_, err := etcd.ClusterID(context.Background(), []string{"http://127.0.0.1:9"})
	if err == nil || !strings.Contains(err.Error(), "http://127.0.0.1:9: connection refused") {
		t.Fatalf("ClusterID(http://127.0.0.1:9) = %v, want the refusal named", err)
	}
	if took := time.Since(start); took > etcd.DefaultDialTimeout/2 {
		t.Errorf("ClusterID(http://127.0.0.1:9) took %v, want well under the dial timeout", took)
	}
}

func mustClusterID(t *testing.T, endpoints ...string) uint64 {
	t.Helper()
	id, err := etcd.ClusterID(context.Background(), endpoints)
	if err != nil {
		t.Fatalf("ClusterID(%v): %v", endpoints, err)
	}
	return id
}
