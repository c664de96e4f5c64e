package coordinator_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store/etcd"
)

// TestSharedTokensAreRevisions: grants answered by two coordinators on one
// shared ledger carry the etcd revision of their commit as their fencing
// token, as etcd reports it for the record that holds the grant; they
// increase across both; the holder a loser is told carries the same
// token; and the token answered is the one renew asks for at once.
func TestSharedTokensAreRevisions(t *testing.T) {
	cluster := startCluster(t)
	ctx := context.Background()
	a, _ := sharedCoordinator(t, cluster.Endpoints, "host-a", keptTTL)
	b, _ := sharedCoordinator(t, cluster.Endpoints, "host-b", keptTTL)
	granted := map[gate.LeaseID]uint64{}
	var last uint64
	for i := range 6 {
		c := []*coordinator.Coordinator{a, b}[i%2]
		if err := c.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		o := gate.Owner{Name: fmt.Sprint("w", i)}
		res, err := c.Lease(ctx, leasegate.LeaseRequest{Op: gate.OpAcquire, Owner: o, Scope: fileScope(fmt.Sprintf("f%d.go", i))})
		if err != nil {
			t.Fatalf("acquire %d = %v", i, err)
		}
		l := res.Leases[0]
		if l.FencingToken <= last {
			t.Fatalf("grant %d: token %d after %d, want increasing across coordinators", i, l.FencingToken, last)
		}
		last, granted[l.ID] = l.FencingToken, l.FencingToken
		if _, err := c.Lease(ctx, leasegate.LeaseRequest{Op: gate.OpRenew, Owner: o, LeaseID: l.ID, Token: l.FencingToken}); err != nil {
			t.Fatalf("renew %s with the token answered (%d) = %v", l.ID, l.FencingToken, err)
		}
		other := []*coordinator.Coordinator{b, a}[i%2]
		if err := other.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		_, err = other.Lease(ctx, leasegate.LeaseRequest{Op: gate.OpAcquire, Owner: gate.Owner{Name: "loser"}, Scope: fileScope(fmt.Sprintf("f%d.go", i))})
		var denied *gate.DeniedError
		if !errors.As(err, &denied) || denied.Holder == nil || denied.Holder.FencingToken != l.FencingToken {
			t.Fatalf("the other coordinator's denial = %v (holder %+v), want the holder with token %d", err, denied, l.FencingToken)
		}
	}
	for id, tok := range granted {
		rev, place := recordOf(t, cluster.Endpoints, id)
		if want := etcd.FencingToken(rev, place); tok != want {
			t.Errorf("lease %s: token %d, want %d (its record's revision %d, grant %d of the commit)", id, tok, want, rev, place)
		}
	}
}

func fileScope(p string) gate.Scope { return gate.Scope{Type: gate.ScopeFile, Paths: []string{p}} }

// recordOf finds the ledger record that granted lease id: the revision
// etcd reports for it, and the grant's place among the record's grants.
func recordOf(t *testing.T, endpoints []string, id gate.LeaseID) (int64, int) {
	t.Helper()
	resp, err := etcdClient(t, endpoints).Get(context.Background(), "/leasegate/hosts/ledger/e/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range resp.Kvs {
		var evs []gate.Event
		if err := json.Unmarshal(kv.Value, &evs); err != nil {
			t.Fatal(err)
		}
		place := 0
		for _, e := range evs {
			if e.Type != gate.EventGranted {
				continue
			}
			if e.Lease.ID == id {
				return kv.ModRevision, place
			}
			place++
		}
	}
	t.Fatalf("no record grants %s", id)
	return 0, 0
}

// TestSharedWokenWriteGetsItsToken: a write held behind another owner's
// lease on a shared ledger, granted when that lease ends, is answered with
// the token its commit fixed: its record's revision, as etcd reports it.
func TestSharedWokenWriteGetsItsToken(t *testing.T) {
	cluster := startCluster(t)
	ctx := context.Background()
	a, _ := sharedCoordinator(t, cluster.Endpoints, "host-a", keptTTL)
	for _, name := range []string{"alice", "bob"} {
		if err := a.Register(ctx, leasegate.Registration{Owner: gate.Owner{Name: name, Host: "host-a"}}); err != nil {
			t.Fatal(err)
		}
	}
	held, err := a.Mutate(ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"a.txt"}})
	if err != nil || held.Outcome != leasegate.Granted {
		t.Fatalf("alice's write = %+v, %v; want granted", held, err)
	}
	waiting, err := a.Mutate(ctx, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: []string{"a.txt"}})
	if err != nil || waiting.Outcome != leasegate.Contended {
		t.Fatalf("bob's write = %+v, %v; want contended", waiting, err)
	}
	l := held.Leases[0]
	if _, err := a.Lease(ctx, leasegate.LeaseRequest{Op: gate.OpRelease, Owner: gate.Owner{Name: "alice"}, LeaseID: l.ID, Token: l.FencingToken}); err != nil {
		t.Fatalf("alice's release with the token she was answered = %v", err)
	}
	woken, err := a.WaitContention(ctx, waiting.Contention.ID)
	if err != nil || woken.Outcome != leasegate.Granted || len(woken.Leases) != 1 {
		t.Fatalf("bob's held write = %+v, %v; want granted once alice released", woken, err)
	}
	got := woken.Leases[0]
	rev, place := recordOf(t, cluster.Endpoints, got.ID)
	if want := etcd.FencingToken(rev, place); got.FencingToken != want {
		t.Fatalf("bob's lease answered with token %d, want %d (its record's revision %d)", got.FencingToken, want, rev)
	}
}
