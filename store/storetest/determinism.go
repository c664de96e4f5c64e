package storetest

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
)

// SeedEnv names the environment variable that fixes the seed of the
// randomized subtests; without it the seed comes from the clock and is
// logged.
const SeedEnv = "STORETEST_SEED"

const historySteps = 1500

// testReplayDeterminism appends random valid lease traffic, one Append per
// decision as the coordinator does, and checks that replaying the ledger
// into a fresh table (before and after reopening) gives the table that was
// built live from what Append returned.
func testReplayDeterminism(t *testing.T, o opener) {
	l, reopen := o.open(t)
	h := newHistory(newRand(t))
	seen := make(map[gate.EventType]int)
	for i := 0; i < historySteps || (!covered(seen) && i < 10*historySteps); i++ {
		evs := h.step()
		if len(evs) == 0 {
			continue
		}
		for _, e := range mustAppend(t, l, evs...) {
			if err := h.table.Apply(e); err != nil {
				t.Fatalf("live Apply(seq %d %s) = %v", e.Seq, e.Type, err)
			}
			seen[e.Type]++
		}
	}
	t.Logf("%d events: %v", l.LastSeq(), seen)
	checkCoverage(t, seen)
	live := tableState(h.table)
	if got := replayTable(t, l); got != live {
		t.Fatalf("replayed table differs from the live one:\n%s\nwant\n%s", got, live)
	}
	mustClose(t, l)
	if got := replayTable(t, reopen()); got != live {
		t.Fatalf("table replayed after reopen differs from the live one:\n%s\nwant\n%s", got, live)
	}
}

func newRand(t *testing.T) *rand.Rand {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(SeedEnv); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("%s=%q: %v", SeedEnv, s, err)
		}
	}
	t.Logf("seed %d (rerun with %s=%d)", seed, SeedEnv, seed)
	return rand.New(rand.NewPCG(seed, 0x1ed6e7))
}

// coverTypes are the events every history must make. A history goes on
// past historySteps until it has made each (a rare seed makes few of the
// rarest), and checkCoverage fails when it never does, so that a broken
// generator cannot pass by testing little.
var coverTypes = []gate.EventType{gate.EventGranted, gate.EventRenewed, gate.EventReleased, gate.EventCompleted,
	gate.EventExpired, gate.EventEvicted, gate.EventReclaimed, gate.EventReminded, gate.EventNotice}

func covered(seen map[gate.EventType]int) bool {
	for _, typ := range coverTypes {
		if seen[typ] == 0 {
			return false
		}
	}
	return true
}

func checkCoverage(t *testing.T, seen map[gate.EventType]int) {
	t.Helper()
	for _, typ := range coverTypes {
		if seen[typ] == 0 {
			t.Fatalf("history made no %s event: %v", typ, seen)
		}
	}
}

// replayTable replays the whole ledger into a fresh table and returns its
// state.
func replayTable(t *testing.T, l store.Ledger) string {
	t.Helper()
	tb := gate.NewTable()
	if err := l.Replay(context.Background(), 0, tb.Apply); err != nil {
		t.Fatalf("Replay(0) into a new table = %v", err)
	}
	if tb.LastSeq() != l.LastSeq() {
		t.Fatalf("replayed table LastSeq() = %d, want the ledger's %d", tb.LastSeq(), l.LastSeq())
	}
	return tableState(tb)
}

// tableState is what a table exposes, as JSON.
func tableState(tb *gate.Table) string {
	return jsonOf(struct {
		All                []gate.Lease
		LastToken, LastSeq uint64
		ActiveCount, Len   int
	}{tb.All(), tb.LastToken(), tb.LastSeq(), tb.ActiveCount(), tb.Len()})
}
