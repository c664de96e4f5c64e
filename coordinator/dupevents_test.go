package coordinator_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// TestEventsOnceAfterEtcdRestart: a coordinator on a shared ledger
// publishes each of its commits once. The watch often reports a commit's
// head before the commit's answer arrives, and after its etcd member
// restarted, every time; taken for another writer's, it made the
// coordinator rebuild its table for each such commit and publish the
// commit's events twice (a sidecar's notice, an `events --follow` line).
func TestEventsOnceAfterEtcdRestart(t *testing.T) {
	cluster := startCluster(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, _ := sharedCoordinator(t, cluster.Endpoints, "host-a", keptTTL)
	if err := a.Register(ctx, leasegate.Registration{Owner: gate.Owner{Name: "alice", Host: "host-a"}}); err != nil {
		t.Fatal(err)
	}
	cluster.StopMember(0)
	if err := cluster.RestartMember(0); err != nil {
		t.Fatal(err)
	}
	waitOutcome(t, "alice's write after the restart", func() (leasegate.Result, error) {
		return a.Mutate(ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"a0.txt"}, Try: true})
	}, true)
	live := a.Subscribe(ctx, 1000)
	for i := 1; i <= 6; i++ {
		r, err := a.Mutate(ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{fmt.Sprintf("a%d.txt", i)}})
		if err != nil || r.Outcome != leasegate.Granted {
			t.Fatalf("write of a%d.txt = %+v, %v; want granted", i, r, err)
		}
	}
	st, err := a.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint64]int{}
	for e := range live {
		if seen[e.Seq]++; seen[e.Seq] > 1 {
			t.Errorf("event %d (%s) published %d times", e.Seq, e.Type, seen[e.Seq])
		}
		if e.Seq == st.LastSeq && len(live) == 0 {
			break
		}
	}
}
