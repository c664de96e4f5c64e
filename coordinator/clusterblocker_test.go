package coordinator_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store/etcd"
)

// clusterRetry is the retry window of the cluster blocker tests: short,
// since their coordinators run on the real clock beside a real etcd.
const clusterRetry = 100 * time.Millisecond

func shortRetry(cfg *coordinator.Config) {
	cfg.Windows.Retry = gate.Window{After: clusterRetry, From: gate.FromFlag}
}

// blockedAcrossHosts has bob on host-b hold a.txt and carol on host-a
// blocked on it, and returns the open blocker's id.
func blockedAcrossHosts(t *testing.T, a, b *coordinator.Coordinator) string {
	t.Helper()
	ctx := context.Background()
	if err := b.Register(ctx, leasegate.Registration{Owner: gate.Owner{Name: "bob", Host: "host-b"}}); err != nil {
		t.Fatal(err)
	}
	if err := a.Register(ctx, leasegate.Registration{Owner: gate.Owner{Name: "carol", Host: "host-a"}}); err != nil {
		t.Fatal(err)
	}
	if r, err := b.Mutate(ctx, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: []string{"a.txt"}}); err != nil || r.Outcome != leasegate.Granted {
		t.Fatalf("bob's write on host-b = %+v, %v, want granted", r, err)
	}
	if err := a.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := a.Mutate(ctx, leasegate.MutateRequest{Owner: "carol", Op: "write", Paths: []string{"a.txt"}})
	if err != nil || r.Outcome != leasegate.Contended {
		t.Fatalf("carol's write of bob's file on host-a = %+v, %v, want contended", r, err)
	}
	res, err := a.WaitContention(ctx, r.Contention.ID)
	if err != nil || res.Outcome != leasegate.Blocked {
		t.Fatalf("WaitContention = %s, %v; want blocked", res.Outcome, err)
	}
	return res.Blocker.ID
}

// TestSharedBlockerHeldAcrossRestart: on a shared ledger, a blocker left
// open by host-a's coordinator that stopped is held again by the next
// coordinator of host-a, where carol's sidecar waits on it; an operator's
// deny given to host-b's coordinator reaches that wait with its note.
func TestSharedBlockerHeldAcrossRestart(t *testing.T) {
	cluster := startCluster(t)
	a1, stopA1 := sharedCoordinator(t, cluster.Endpoints, "host-a", keptTTL, shortRetry)
	b, _ := sharedCoordinator(t, cluster.Endpoints, "host-b", keptTTL, shortRetry)
	id := blockedAcrossHosts(t, a1, b)
	stopA1()
	a2, _ := sharedCoordinator(t, cluster.Endpoints, "host-a", keptTTL, shortRetry)

	brief, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if r, err := a2.WaitBlocker(brief, id); err != nil || r.Outcome != leasegate.Blocked {
		t.Fatalf("WaitBlocker on host-a's next coordinator = %s, %v; want it held for the operator", r.Outcome, err)
	}
	waited := make(chan leasegate.Result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		r, _ := a2.WaitBlocker(ctx, id)
		waited <- r
	}()
	if err := b.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	res, err := b.Resolve(context.Background(), id, blocker.ActionDeny, "op", "not now")
	if err != nil || res.Outcome != leasegate.Denied || !strings.Contains(res.Message, "coordinator of host-a") {
		t.Fatalf("Resolve(deny) on host-b = %s %q, %v; want denied, naming host-a's coordinator as the one that answers", res.Outcome, res.Message, err)
	}
	if r := <-waited; r.Outcome != leasegate.Denied || !strings.Contains(r.Message, "not now") {
		t.Fatalf("carol's held write on host-a = %s %q; want denied with the operator's note", r.Outcome, r.Message)
	}
}

// TestSharedBlockerRetriedElsewhere: an operator's retry given to host-b's
// coordinator, once bob let go, grants carol's write held on host-a, with
// her lease.
func TestSharedBlockerRetriedElsewhere(t *testing.T) {
	cluster := startCluster(t)
	a, _ := sharedCoordinator(t, cluster.Endpoints, "host-a", keptTTL, shortRetry)
	b, _ := sharedCoordinator(t, cluster.Endpoints, "host-b", keptTTL, shortRetry)
	id := blockedAcrossHosts(t, a, b)
	ctx := context.Background()
	waited := make(chan leasegate.Result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		r, _ := a.WaitBlocker(ctx, id)
		waited <- r
	}()
	if _, err := b.End(ctx, "bob", "worker exited"); err != nil {
		t.Fatal(err)
	}
	if err := b.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if res, err := b.Resolve(ctx, id, blocker.ActionRetry, "op", ""); err != nil || res.Outcome != leasegate.Granted {
		t.Fatalf("Resolve(retry) on host-b = %s %q, %v; want granted", res.Outcome, res.Message, err)
	}
	r := <-waited
	if r.Outcome != leasegate.Granted || len(r.Leases) != 1 || r.Leases[0].Owner.Name != "carol" || r.Leases[0].FencingToken == 0 {
		t.Fatalf("carol's held write on host-a = %s with leases %+v; want granted with her lease of a.txt", r.Outcome, r.Leases)
	}
}

// TestSharedEndAndResolveCatchUp: an owner's end and an operator's retry
// given to a coordinator that has not seen the other coordinator's last
// commits lose the race on the shared ledger; each catches up and is
// carried out again, as a mutation is, rather than failing with ErrRaced.
func TestSharedEndAndResolveCatchUp(t *testing.T) {
	cluster := startCluster(t)
	a, _ := sharedCoordinator(t, cluster.Endpoints, "host-a", keptTTL, shortRetry)
	b, _ := sharedCoordinator(t, cluster.Endpoints, "host-b", keptTTL, shortRetry, deaf)
	id := blockedAcrossHosts(t, a, b) // host-b has not seen carol's blocker
	ctx := context.Background()
	if _, err := b.End(ctx, "bob", "worker exited"); err != nil {
		t.Fatalf("End(bob) on host-b, behind host-a's blocker = %v; want it caught up and ended", err)
	}
	if err := a.Register(ctx, leasegate.Registration{Owner: gate.Owner{Name: "dan", Host: "host-a"}}); err != nil {
		t.Fatal(err)
	}
	res, err := b.Resolve(ctx, id, blocker.ActionRetry, "op", "")
	if err != nil || res.Outcome != leasegate.Granted {
		t.Fatalf("Resolve(retry) on host-b, behind dan's registration on host-a = %s %q, %v; want granted", res.Outcome, res.Message, err)
	}
}

// TestSharedContentionResolvedAfterRace: an operator's deny of a write
// waiting on host-b for its retry, given while host-b has not seen
// host-a's last commit, loses the race on the shared ledger; the write
// still waits, and the deny, carried out again once caught up, denies it
// (it was left waiting with its retry cancelled, and the deny said no
// such contention).
func TestSharedContentionResolvedAfterRace(t *testing.T) {
	cluster := startCluster(t)
	a, _ := sharedCoordinator(t, cluster.Endpoints, "host-a", keptTTL)
	b, _ := sharedCoordinator(t, cluster.Endpoints, "host-b", keptTTL, deaf)
	ctx := context.Background()
	if err := a.Register(ctx, leasegate.Registration{Owner: gate.Owner{Name: "bob", Host: "host-a"}}); err != nil {
		t.Fatal(err)
	}
	if r, err := a.Mutate(ctx, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: []string{"a.txt"}}); err != nil || r.Outcome != leasegate.Granted {
		t.Fatalf("bob's write on host-a = %+v, %v, want granted", r, err)
	}
	if err := b.Register(ctx, leasegate.Registration{Owner: gate.Owner{Name: "carol", Host: "host-b"}}); err != nil {
		t.Fatal(err)
	}
	r, err := b.Mutate(ctx, leasegate.MutateRequest{Owner: "carol", Op: "write", Paths: []string{"a.txt"}})
	if err != nil || r.Outcome != leasegate.Contended {
		t.Fatalf("carol's write of bob's file on host-b = %+v, %v, want contended", r, err)
	}
	if err := a.Register(ctx, leasegate.Registration{Owner: gate.Owner{Name: "dan", Host: "host-a"}}); err != nil {
		t.Fatal(err)
	}
	id := r.Contention.ID
	if res, err := b.Resolve(ctx, id, blocker.ActionDeny, "op", ""); err != nil || res.Outcome != leasegate.Denied {
		t.Fatalf("Resolve(%s, deny) on host-b, behind dan's registration on host-a = %s %q, %v; want denied", id, res.Outcome, res.Message, err)
	}
	brief, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if w, err := b.WaitContention(brief, id); err != nil || w.Outcome != leasegate.Denied {
		t.Fatalf("WaitContention(%s) after the deny = %s, %v; want denied", id, w.Outcome, err)
	}
}

// deaf makes a shared coordinator's ledger tell it of no other
// coordinator's commits, so it learns of them only when one of its own
// commits loses the race.
func deaf(cfg *coordinator.Config) {
	cfg.Ledger = deafLedger{cfg.Ledger.(*etcd.Ledger)}
}

type deafLedger struct{ *etcd.Ledger }

// Changes never signals; the channel closes when ctx ends.
func (deafLedger) Changes(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{})
	context.AfterFunc(ctx, func() { close(ch) })
	return ch
}
