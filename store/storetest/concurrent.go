package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
)

const (
	appenders        = 16
	callsPerAppender = 25
)

// testConcurrentAppends appends from 16 goroutines at once, calls of one to
// four events: every Seq is used once, they run 1..N without gaps, each
// call's events are contiguous and in order, and the ledger replays exactly
// what each call was told.
func testConcurrentAppends(t *testing.T, o opener) {
	l, _ := o.open(t)
	calls := make([][][]gate.Event, appenders) // per appender, per call, the returned events
	var wg sync.WaitGroup
	for g := range appenders {
		wg.Go(func() { calls[g] = appendCalls(t, l, g) })
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	bySeq := make(map[uint64]gate.Event)
	for g := range calls {
		checkCallOrder(t, g, calls[g])
		for _, call := range calls[g] {
			for _, e := range call {
				if _, dup := bySeq[e.Seq]; dup {
					t.Fatalf("seq %d was returned to two calls", e.Seq)
				}
				bySeq[e.Seq] = e
			}
		}
	}
	checkReplayMatches(t, l, bySeq)
}

// appendCalls makes one appender's calls and checks each call's answer.
func appendCalls(t *testing.T, l store.Ledger, g int) [][]gate.Event {
	var out [][]gate.Event
	for c := range callsPerAppender {
		in := notes(fmt.Sprintf("w%02d", g), 1+(g+c)%4)
		for i := range in {
			in[i].Path = fmt.Sprintf("call-%02d/%d", c, i)
		}
		got, err := l.Append(t.Context(), in...)
		if err != nil {
			t.Errorf("appender %d: Append(call %d) = %v", g, c, err)
			return nil
		}
		if len(got) != len(in) {
			t.Errorf("appender %d: Append(call %d) returned %d events, want %d", g, c, len(got), len(in))
			return nil
		}
		if want := span(got[0].Seq, got[0].Seq+uint64(len(in))-1); !slices.Equal(seqs(got), want) {
			t.Errorf("appender %d: Append(call %d) seqs = %v, want contiguous %v", g, c, seqs(got), want)
		}
		for i := range in {
			in[i].Seq = got[i].Seq
		}
		if gotJSON, wantJSON := jsonOf(got), jsonOf(in); gotJSON != wantJSON {
			t.Errorf("appender %d: Append(call %d) = %s, want %s", g, c, gotJSON, wantJSON)
		}
		out = append(out, got)
	}
	return out
}

// checkCallOrder checks that one appender's sequential calls got
// increasing seqs.
func checkCallOrder(t *testing.T, g int, calls [][]gate.Event) {
	t.Helper()
	for c := 1; c < len(calls); c++ {
		prev := calls[c-1]
		if last, first := prev[len(prev)-1].Seq, calls[c][0].Seq; first <= last {
			t.Fatalf("appender %d: call %d got seq %d, not after call %d's %d", g, c, first, c-1, last)
		}
	}
}

func checkReplayMatches(t *testing.T, l store.Ledger, bySeq map[uint64]gate.Event) {
	t.Helper()
	n := uint64(len(bySeq))
	if got := l.LastSeq(); got != n {
		t.Fatalf("LastSeq() = %d, want %d (one per appended event)", got, n)
	}
	replayed := replayAll(t, l, 0)
	if !slices.Equal(seqs(replayed), span(1, n)) {
		t.Fatalf("Replay(0) seqs = %v, want 1..%d", seqs(replayed), n)
	}
	for _, e := range replayed {
		if g, w := jsonOf(e), jsonOf(bySeq[e.Seq]); g != w {
			t.Fatalf("Replay(0) seq %d = %s, want %s (as Append returned it)", e.Seq, g, w)
		}
	}
}
