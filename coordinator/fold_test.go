package coordinator_test

import (
	"sync"
	"testing"
	"testing/synctest"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
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
