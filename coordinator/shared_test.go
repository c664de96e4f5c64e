package coordinator_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
)

// TestSharedRacesRebuild: two coordinators on one shared ledger, four
// clients each, take and give back the same few files as fast as they
// can, so that their commits keep racing and each rebuilds its table
// after the ones it loses. A third coordinator then replays the ledger,
// which it refuses if a file was ever granted to two owners at once, and
// both tables, caught up, hold the same leases as its.
func TestSharedRacesRebuild(t *testing.T) {
	cluster := startCluster(t)
	a, _ := sharedCoordinator(t, cluster.Endpoints, "host-a", keptTTL)
	b, _ := sharedCoordinator(t, cluster.Endpoints, "host-b", keptTTL)
	contest(t, []*coordinator.Coordinator{a, b}, 40, func(w, i int) string { return fmt.Sprintf("f%d", (w+i)%5) })
	replayed, _ := sharedCoordinator(t, cluster.Endpoints, "host-c", keptTTL)
	checkCaughtUp(t, replayed, a, b)
}

// contest runs eight clients, taking turns over the coordinators cs, each
// acquiring and releasing path(client, round) for rounds rounds and keeping
// its last lease; a path another owner holds is skipped.
func contest(t *testing.T, cs []*coordinator.Coordinator, rounds int, path func(w, i int) string) {
	t.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range 8 {
		c := cs[w%len(cs)]
		o := gate.Owner{Name: fmt.Sprint("w", w)}
		wg.Go(func() {
			for i := range rounds {
				scope := gate.Scope{Type: gate.ScopeFile, Paths: []string{path(w, i)}}
				res, err := c.Lease(ctx, leasegate.LeaseRequest{Op: gate.OpAcquire, Owner: o, Scope: scope})
				if errors.Is(err, gate.ErrHeldByOther) {
					continue
				}
				if err != nil {
					t.Errorf("%s acquire %v = %v", o.Name, scope.Paths, err)
					return
				}
				if i == rounds-1 {
					break // the last one is kept
				}
				l := res.Leases[0]
				if _, err := c.Lease(ctx, leasegate.LeaseRequest{Op: gate.OpRelease, Owner: o, LeaseID: l.ID, Token: l.FencingToken}); err != nil {
					t.Errorf("%s release %s = %v", o.Name, l.ID, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// checkCaughtUp fails unless each of cs, caught up with the ledger, holds
// the active leases replayed, a coordinator opened after them, holds.
func checkCaughtUp(t *testing.T, replayed *coordinator.Coordinator, cs ...*coordinator.Coordinator) {
	t.Helper()
	want := activeJSON(t, replayed)
	for _, c := range cs {
		if err := c.Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := activeJSON(t, c); got != want {
			t.Fatalf("a coordinator's active leases = %s\nwant the ledger's %s", got, want)
		}
	}
}

func activeJSON(t *testing.T, c *coordinator.Coordinator) string {
	t.Helper()
	st, err := c.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(st.Leases)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
