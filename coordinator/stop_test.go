package coordinator_test

import (
	"context"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// TestStopWhileCommitUnsettled: a coordinator whose commit etcd cannot
// settle (its only member is down) still stops when told to: the ledger
// gives up on the commit, its caller is told, and Run returns, instead of
// waiting for a commit only the closing ledger would end.
func TestStopWhileCommitUnsettled(t *testing.T) {
	cluster := startCluster(t)
	c, stop := sharedCoordinator(t, cluster.Endpoints, "host-a", keptTTL)
	cluster.StopMember(0)
	answered := make(chan error, 1)
	go func() {
		_, err := c.Lease(context.Background(), leasegate.LeaseRequest{Op: gate.OpAcquire, Owner: gate.Owner{Name: "alice"}, Scope: fileScope("a.go")})
		answered <- err
	}()
	time.Sleep(500 * time.Millisecond) // the acquire's commit is on its way to the stopped member
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(70 * time.Second):
		t.Fatal("Run did not return once its context ended, with a commit etcd cannot settle")
	}
	select {
	case err := <-answered:
		if err == nil {
			t.Fatal("the acquire whose commit was never settled was answered as granted")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the acquire was not answered once the coordinator stopped")
	}
}
