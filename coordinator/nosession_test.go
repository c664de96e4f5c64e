package coordinator_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
)

// TestStatusWarnsWithoutSession: while a coordinator on a shared ledger
// has no etcd session (its only etcd member stopped past the session's
// TTL), status and every check say so, with the cause (etcd unreachable;
// it said only that the session lapsed), as they say a
// degraded ledger; the warning goes once the member is back and the table
// reloaded.
func TestStatusWarnsWithoutSession(t *testing.T) {
	cluster := startCluster(t)
	c, _ := sharedCoordinator(t, cluster.Endpoints, "host-a", goneTTL)
	warning := warningOf(t, c)
	if w := warning(); w != "" {
		t.Fatalf("status warns %q with etcd up", w)
	}
	cluster.StopMember(0)
	waitWarning(t, "with etcd stopped", warning, func(w string) bool {
		return strings.Contains(w, "no session on the shared lease table") && strings.Contains(w, "writes are held") && strings.Contains(w, "unreachable")
	})
	if err := cluster.RestartMember(0); err != nil {
		t.Fatal(err)
	}
	waitWarning(t, "with etcd back", warning, func(w string) bool { return w == "" })
}

// TestStatusWarnsWhileEtcdUnreachable: before the session's TTL has run
// out, a coordinator whose etcd member stopped still has its session, and
// status says at once that etcd cannot be reached and writes wait; status
// and check answer meanwhile, though the coordinator is trying to catch up
// with the cluster (they waited for etcd to come back with its table
// locked).
func TestStatusWarnsWhileEtcdUnreachable(t *testing.T) {
	cluster := startCluster(t)
	c, _ := sharedCoordinator(t, cluster.Endpoints, "host-a", keptTTL)
	warning := warningOf(t, c)
	if w := warning(); w != "" {
		t.Fatalf("status warns %q with etcd up", w)
	}
	cluster.StopMember(0)
	waitWarning(t, "with etcd stopped", warning, func(w string) bool {
		return strings.Contains(w, "unreachable") && strings.Contains(w, "writes wait for it")
	})
	if err := cluster.RestartMember(0); err != nil {
		t.Fatal(err)
	}
	waitWarning(t, "with etcd back", warning, func(w string) bool { return w == "" })
}

// warningOf is a function returning c's status warning, failing the test
// when check's differs or either does not answer within 10 s.
func warningOf(t *testing.T, c *coordinator.Coordinator) func() string {
	return func() string {
		t.Helper()
		answered := make(chan string, 1)
		go func() {
			st, err := c.Status(context.Background())
			if err != nil {
				t.Error(err)
			}
			v, err := c.Check(context.Background(), []string{"a.go"})
			if err != nil {
				t.Error(err)
			}
			if v.Warning != st.LedgerWarning {
				t.Errorf("check warns %q, status %q: want the same", v.Warning, st.LedgerWarning)
			}
			answered <- st.LedgerWarning
		}()
		select {
		case w := <-answered:
			return w
		case <-time.After(10 * time.Second):
			t.Fatal("status and check did not answer within 10 s")
			return ""
		}
	}
}

// waitWarning polls warning for up to 30 s until ok says it is what is
// wanted when.
func waitWarning(t *testing.T, when string, warning func() string, ok func(string) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for w := warning(); !ok(w); w = warning() {
		if time.Now().After(deadline) {
			t.Fatalf("status warns %q 30 s %s", w, when)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestServesSoonAfterALongOutage: etcd's only member is down for 30 s,
// long past the session's TTL; once it is back, the coordinator has a new
// session and serves again within 3 s. The client's connection waited out
// gRPC's backoff, which grows to two minutes: after 30 s down it came back
// about 13 s late.
func TestServesSoonAfterALongOutage(t *testing.T) {
	cluster := startCluster(t)
	c, _ := sharedCoordinator(t, cluster.Endpoints, "host-a", goneTTL)
	warning := warningOf(t, c)
	cluster.StopMember(0)
	time.Sleep(30 * time.Second) // the outage: etcd's time away, not the coordinator's
	if err := cluster.RestartMember(0); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	deadline := back.Add(3 * time.Second)
	for w := warning(); w != ""; w = warning() {
		if time.Now().After(deadline) {
			t.Fatalf("status warns %q 3 s after etcd was back from a 30 s outage", w)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("serving %v after etcd was back", time.Since(back).Round(time.Millisecond))
}

// TestFollowFromTheLastSeqWhileEtcdIsDown: a follower of the events that
// has seen every committed event (a sidecar reconnecting, `events
// --follow --after N`) keeps following while etcd is down, its session
// still alive: there is nothing in the ledger to read for it. It was cut
// off after etcd's 5 s dial timeout, reading a head it did not need, again
// at every reconnection.
func TestFollowFromTheLastSeqWhileEtcdIsDown(t *testing.T) {
	cluster := startCluster(t)
	c, _ := sharedCoordinator(t, cluster.Endpoints, "host-a", keptTTL)
	ctx := context.Background()
	if err := c.Register(ctx, leasegate.Registration{Owner: gate.Owner{Name: "alice", Host: "host-a"}}); err != nil {
		t.Fatal(err)
	}
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cluster.StopMember(0)
	fctx, cancel := context.WithTimeout(ctx, 7*time.Second) // past the 5 s dial timeout
	defer cancel()
	if err := c.Events(fctx, st.LastSeq, true, func(gate.Event) error { return nil }); err != nil {
		t.Fatalf("Events(after %d, follow) with etcd down = %v, want it following until its context ends", st.LastSeq, err)
	}
}
