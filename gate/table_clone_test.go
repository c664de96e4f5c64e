package gate_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// churn makes n random decisions on w: writes of many owners over many
// files (more than a directory keeps in a slice), check-outs of globs,
// releases, renewals and prunes.
func churn(w *world, rng *rand.Rand, n int, now time.Time) time.Time {
	owners := []string{"alice", "bob", "carol", "dave"}
	for range n {
		now = now.Add(time.Second)
		who := owners[rng.IntN(len(owners))]
		switch k := rng.IntN(10); {
		case k < 5:
			w.decide(write(who, fmt.Sprintf("d%d/f%d.go", rng.IntN(3), rng.IntN(40)), fmt.Sprintf("x/%d/y.go", rng.IntN(5))), now)
		case k < 6:
			w.decide(checkout(who, sparse(fmt.Sprintf("g%d/**", rng.IntN(4)))), now)
		case k < 9:
			if ls := w.table.ByOwner(who); len(ls) > 0 {
				l := ls[rng.IntN(len(ls))]
				op := gate.OpRelease
				if l.Kind == gate.KindCheckout && rng.IntN(2) == 0 {
					op = gate.OpRenew
				}
				w.decide(on(op, who, l), now)
			}
		default:
			w.table.PruneExcess(rng.IntN(20))
		}
	}
	return now
}

// tableState is what a table answers, for comparing two tables.
func tableState(t *testing.T, tb *gate.Table) string {
	t.Helper()
	q := []gate.Scope{fileScope("d1/f3.go"), sparse("g2/x"), sparse("**/*.go"), fullScope()}
	var over [][]gate.Lease
	for _, s := range q {
		over = append(over, tb.Overlapping(s))
	}
	return fmt.Sprintf("%s %d %d %d %d %s", jsonOf(t, tb.All()), tb.LastToken(), tb.LastSeq(), tb.ActiveCount(), tb.Len(), jsonOf(t, over))
}

// TestTableClone: a clone answers as its original did when it was taken,
// whatever the original goes through next, and, given the same events,
// goes on answering as the original does.
func TestTableClone(t *testing.T) {
	rng := testRand(t)
	w := newWorld(t)
	now := churn(w, rng, 400, t0)
	c := w.table.Clone()
	at := tableState(t, w.table)
	if got := tableState(t, c); got != at {
		t.Fatalf("clone = %s\nwant %s", got, at)
	}
	mark := len(w.log)
	churn(w, rng, 400, now)
	if got := tableState(t, c); got != at {
		t.Fatalf("clone after the original changed = %s\nwant it as it was: %s", got, at)
	}
	for _, e := range w.log[mark:] {
		if err := c.Apply(e); err != nil {
			t.Fatalf("clone.Apply(seq %d %s) = %v, want nil as the original took it", e.Seq, e.Type, err)
		}
	}
	c.PruneExcess(0) // the original forgot ended leases along the way
	w.table.PruneExcess(0)
	if got, want := tableState(t, c), tableState(t, w.table); got != want {
		t.Fatalf("clone given the same events = %s\nwant the original's %s", got, want)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
