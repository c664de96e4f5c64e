package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
)

// t0 is the fixed time every scenario starts from. Persisted times are UTC.
var t0 = time.Date(2025, time.March, 3, 9, 0, 0, 0, time.UTC)

// RunLedgerTests runs the conformance suite. open returns a new, empty
// ledger and a function that opens the same ledger again once it has been
// closed; it should clean up its files with t.Cleanup. The suite closes
// every ledger it gets.
func RunLedgerTests(t *testing.T, open func(t *testing.T) (store.Ledger, func() store.Ledger)) {
	o := opener(open)
	tests := []struct {
		name string
		run  func(*testing.T, opener)
	}{
		{"Empty", testEmpty},
		{"AppendAssignsConsecutiveSeqs", testAppendSeqs},
		{"AppendNothing", testAppendNothing},
		{"ReplayTail", testReplayTail},
		{"ReplayStopsAtError", testReplayStopsAtError},
		{"SurvivesReopen", testSurvivesReopen},
		{"StoresUTC", testStoresUTC},
		{"ConcurrentAppends", testConcurrentAppends},
		{"Closed", testClosed},
		{"CancelledContext", testCancelledContext},
		{"ReplayDeterminism", testReplayDeterminism},
		{"Prune", testPrune},
		{"EnqueueAckCommitOrder", testEnqueueAckOrder},
		{"EnqueueAckAfterCommit", testEnqueueAckDurable},
		{"EnqueueAckClosed", testEnqueueAckClosed},
		{"EnqueueAckNotInCall", testEnqueueAckNotInCall},
		{"GrantTokens", testGrantTokens},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, o) })
	}
}

type opener func(t *testing.T) (store.Ledger, func() store.Ledger)

// open returns a new ledger that is closed when the test ends, and a
// reopen function whose ledgers are closed the same way.
func (o opener) open(t *testing.T) (store.Ledger, func() store.Ledger) {
	t.Helper()
	l, reopen := o(t)
	t.Cleanup(func() { l.Close() })
	return l, func() store.Ledger {
		t.Helper()
		r := reopen()
		t.Cleanup(func() { r.Close() })
		return r
	}
}

func mustAppend(t *testing.T, l store.Ledger, evs ...gate.Event) []gate.Event {
	t.Helper()
	got, err := l.Append(context.Background(), evs...)
	if err != nil {
		t.Fatalf("Append(%d events) = %v", len(evs), err)
	}
	if len(got) != len(evs) {
		t.Fatalf("Append(%d events) returned %d events", len(evs), len(got))
	}
	return got
}

func mustClose(t *testing.T, l store.Ledger) {
	t.Helper()
	if err := l.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
}

func replayAll(t *testing.T, l store.Ledger, after uint64) []gate.Event {
	t.Helper()
	var out []gate.Event
	if err := l.Replay(context.Background(), after, func(e gate.Event) error {
		out = append(out, e)
		return nil
	}); err != nil {
		t.Fatalf("Replay(%d) = %v", after, err)
	}
	return out
}

// notes returns n non-lease events marked with who and their index.
func notes(who string, n int) []gate.Event {
	evs := make([]gate.Event, n)
	for i := range evs {
		evs[i] = gate.Event{Type: gate.EventNotice, At: t0.Add(time.Duration(i) * time.Second), Actor: who, Path: fmt.Sprintf("note/%d", i)}
	}
	return evs
}

// jsonOf is v as JSON, the form in which results are compared byte for
// byte. It is safe to call from any goroutine.
func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("json.Marshal(%T) failed: %v", v, err)
	}
	return string(b)
}

// seqs lists the Seq of every event.
func seqs(evs []gate.Event) []uint64 {
	out := make([]uint64, len(evs))
	for i, e := range evs {
		out[i] = e.Seq
	}
	return out
}

// span is the list from..to, inclusive.
func span(from, to uint64) []uint64 {
	var out []uint64
	for s := from; s <= to; s++ {
		out = append(out, s)
	}
	return out
}
