package coordinator_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store/etcd"
)

// TestFoldedSpellingsRace: on a volume that folds case, two owners racing
// to create a/New.go and a/NEW.go, which will be one file, get one grant
// between them; the other is refused, told who holds it. After a restart
// the replayed table still folds.
func TestFoldedSpellingsRace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, func(c *coordinator.Config) { c.Folding = gate.FoldCase })
		spellings := map[string]string{"alice": "a/New.go", "bob": "a/NEW.go"}
		results := make(map[string]leasegate.Result)
		var mu sync.Mutex
		var wg sync.WaitGroup
		for who, p := range spellings {
			wg.Go(func() {
				r, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: who, Op: "write", Paths: []string{p}, Try: true})
				if err != nil {
					t.Errorf("Mutate(%s, %s) = %v", who, p, err)
				}
				mu.Lock()
				results[who] = r
				mu.Unlock()
			})
		}
		wg.Wait()
		var winner, loser string
		for who, r := range results {
			if r.Outcome == leasegate.Granted {
				winner = who
			} else {
				loser = who
			}
		}
		if winner == "" || loser == "" {
			t.Fatalf("alice's Mutate = %s, bob's = %s; want one granted and one denied", results["alice"].Outcome, results["bob"].Outcome)
		}
		if r := results[loser]; r.Outcome != leasegate.Denied || r.Reason != gate.ReasonHeldByOther || r.Holder == nil || r.Holder.Owner.Name != winner {
			t.Fatalf("%s's Mutate(%s) = %s %s holder %v, want denied, held by %s", loser, spellings[loser], r.Outcome, r.Reason, r.Holder, winner)
		}
		for _, g := range e.events(gate.EventGranted) {
			if g.Lease.Owner.Name != winner {
				t.Fatalf("the ledger grants %s to %s too, want only %s's grants", g.Lease.Scope.Paths, g.Lease.Owner.Name, winner)
			}
		}
		e.reopen()
		e.register("carol")
		r, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: "carol", Op: "write", Paths: []string{"A/new.GO"}, Try: true})
		if err != nil || r.Outcome != leasegate.Denied || r.Holder == nil || r.Holder.Owner.Name != winner {
			t.Fatalf("after a restart, carol's Mutate(A/new.GO) = %+v, %v; want denied, held by %s", r, err, winner)
		}
	})
}

// TestSharedFoldedRace: two coordinators sharing one ledger, both on
// volumes that fold case, whose clients take and give back the same few
// files spelt in two cases as fast as they can. Their commits keep racing,
// so each rebuilds its table from the ledger after the races it loses; no
// file is ever granted to two owners at once under either spelling, and a
// third coordinator replaying the ledger holds what both hold.
func TestSharedFoldedRace(t *testing.T) {
	cluster := startCluster(t)
	fold := func(c *coordinator.Config) { c.Folding = gate.FoldCase }
	a, _ := sharedCoordinator(t, cluster.Endpoints, "host-a", keptTTL, fold)
	b, _ := sharedCoordinator(t, cluster.Endpoints, "host-b", keptTTL, fold)
	contest(t, []*coordinator.Coordinator{a, b}, 30, func(w, i int) string {
		return fmt.Sprintf([]string{"f%d.go", "F%d.GO"}[w/2%2], (w+i)%4) // each coordinator's clients use both spellings
	})
	checkNoFoldedDoubleGrant(t, cluster.Endpoints)
	replayed, _ := sharedCoordinator(t, cluster.Endpoints, "host-c", keptTTL, fold)
	checkCaughtUp(t, replayed, a, b)
}

// checkNoFoldedDoubleGrant reads the shared ledger in order and fails if a
// path was granted while another owner held it in any case.
func checkNoFoldedDoubleGrant(t *testing.T, endpoints []string) {
	t.Helper()
	type held struct{ owner, key string }
	active := map[gate.LeaseID]held{}
	byKey := map[string]gate.LeaseID{}
	grants := 0
	_, err := etcd.ReadAll(context.Background(), etcd.Config{Endpoints: endpoints, Workspace: "hosts"}, func(e gate.Event) error {
		switch {
		case e.Type == gate.EventGranted:
			grants++
			key := strings.ToLower(e.Lease.Scope.Paths[0])
			if id, ok := byKey[key]; ok && active[id].owner != e.Lease.Owner.Name {
				return fmt.Errorf("%s granted %s to %s while %s held it (lease %s)", e.Lease.ID, e.Lease.Scope.Paths[0], e.Lease.Owner.Name, active[id].owner, id)
			}
			active[e.Lease.ID], byKey[key] = held{e.Lease.Owner.Name, key}, e.Lease.ID
		case e.Type.EndsLease():
			if h, ok := active[e.LeaseID]; ok {
				delete(active, e.LeaseID)
				if byKey[h.key] == e.LeaseID {
					delete(byKey, h.key)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if grants < 8 {
		t.Fatalf("the ledger holds %d grants, want at least one per client", grants)
	}
	t.Logf("%d grants, none of a path another owner held in any case", grants)
}
