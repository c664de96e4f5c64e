package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
)

func testEmpty(t *testing.T, o opener) {
	l, _ := o.open(t)
	if got := l.LastSeq(); got != 0 {
		t.Fatalf("LastSeq() of a new ledger = %d, want 0", got)
	}
	if got := replayAll(t, l, 0); len(got) != 0 {
		t.Fatalf("Replay(0) of a new ledger yielded %d events, want none", len(got))
	}
}

func testAppendSeqs(t *testing.T, o opener) {
	l, _ := o.open(t)
	in := notes("alice", 3)
	if got := seqs(mustAppend(t, l, in[:1]...)); !slices.Equal(got, []uint64{1}) {
		t.Fatalf("first Append seqs = %v, want [1]", got)
	}
	if got := seqs(mustAppend(t, l, in...)); !slices.Equal(got, []uint64{2, 3, 4}) {
		t.Fatalf("second Append seqs = %v, want [2 3 4]", got)
	}
	if got := l.LastSeq(); got != 4 {
		t.Fatalf("LastSeq() = %d, want 4", got)
	}
	for i, e := range in {
		if e.Seq != 0 {
			t.Fatalf("Append modified the caller's event %d: Seq = %d, want 0", i, e.Seq)
		}
	}
}

func testAppendNothing(t *testing.T, o opener) {
	l, _ := o.open(t)
	mustAppend(t, l, notes("alice", 1)...)
	got, err := l.Append(context.Background())
	if err != nil || len(got) != 0 {
		t.Fatalf("Append() = %v, %v, want no events and no error", got, err)
	}
	if got := l.LastSeq(); got != 1 {
		t.Fatalf("LastSeq() after an empty Append = %d, want 1", got)
	}
}

func testReplayTail(t *testing.T, o opener) {
	l, _ := o.open(t)
	var all []gate.Event
	for _, n := range []int{1, 4, 2, 3} {
		all = append(all, mustAppend(t, l, notes("alice", n)...)...)
	}
	for _, after := range []uint64{0, 1, 4, 9, 10, 11, 1 << 63} {
		want := span(after+1, 10)
		if after >= 10 {
			want = nil
		}
		got := replayAll(t, l, after)
		if !slices.Equal(seqs(got), want) {
			t.Fatalf("Replay(%d) seqs = %v, want %v", after, seqs(got), want)
		}
		if len(got) > 0 && jsonOf(got) != jsonOf(all[after:]) {
			t.Fatalf("Replay(%d) = %s, want %s", after, jsonOf(got), jsonOf(all[after:]))
		}
	}
}

func testReplayStopsAtError(t *testing.T, o opener) {
	l, _ := o.open(t)
	mustAppend(t, l, notes("alice", 5)...)
	stop := errors.New("stop here")
	var seen []uint64
	err := l.Replay(context.Background(), 0, func(e gate.Event) error {
		seen = append(seen, e.Seq)
		if e.Seq == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("Replay with fn failing at seq 3 = %v, want %v", err, stop)
	}
	if !slices.Equal(seen, []uint64{1, 2, 3}) {
		t.Fatalf("Replay with fn failing at seq 3 visited %v, want [1 2 3]", seen)
	}
}

// richEvents use every field of an event, with times to the nanosecond.
func richEvents() []gate.Event {
	at := t0.Add(1234567891 * time.Nanosecond)
	lease := &gate.Lease{
		ID: "01JLEASE000000000000000001", Owner: gate.Owner{Name: "alice", Host: "build-7", PID: 4242, StartTime: 1740992400123},
		Kind: gate.KindCheckout, Scope: gate.Scope{Type: gate.ScopeSparse, Paths: []string{"docs/**", "src/ünï cödé.go"}},
		State: gate.StateActive, FencingToken: 1, AcquiredAt: at, LastHeartbeatAt: at, ExpiresAt: at.Add(gate.DefaultCheckoutTTL),
	}
	return []gate.Event{
		{Type: gate.EventGranted, At: at, Actor: "alice", Lease: lease},
		{Type: gate.EventRenewed, At: at.Add(time.Hour), Actor: "alice", LeaseID: lease.ID, ExpiresAt: at.Add(75 * time.Hour)},
		{Type: gate.EventContention, At: at.Add(2 * time.Hour), Actor: "bob", Path: "docs/a <b> & \"c\".md",
			Data: json.RawMessage(`{"holder":"alice","retry_at":"2025-03-03T12:00:00Z","age_ms":7200000}`)},
		{Type: gate.EventEvicted, At: at.Add(3 * time.Hour), Actor: "root", LeaseID: lease.ID, Reason: "release freeze\nline two"},
	}
}

func testSurvivesReopen(t *testing.T, o opener) {
	l, reopen := o.open(t)
	in := richEvents()
	got := append(mustAppend(t, l, in[:1]...), mustAppend(t, l, in[1:]...)...)
	mustClose(t, l)
	r := reopen()
	if s := r.LastSeq(); s != uint64(len(in)) {
		t.Fatalf("LastSeq() after reopen = %d, want %d", s, len(in))
	}
	replayed := replayAll(t, r, 0)
	if g, w := jsonOf(replayed), jsonOf(got); g != w {
		t.Fatalf("Replay after reopen =\n%s\nwant\n%s", g, w)
	}
	if s := seqs(mustAppend(t, r, notes("bob", 1)...)); !slices.Equal(s, []uint64{5}) {
		t.Fatalf("Append after reopen seqs = %v, want [5]", s)
	}
}

// testStoresUTC appends events whose times carry another zone and a
// monotonic reading; the replay gives the same instants, in UTC.
func testStoresUTC(t *testing.T, o opener) {
	l, _ := o.open(t)
	zone := time.FixedZone("UTC+5:30", 5*3600+1800)
	in := richEvents()
	for i := range in {
		in[i].At = in[i].At.In(zone)
		if in[i].Lease != nil {
			lc := *in[i].Lease
			lc.AcquiredAt = time.Now().In(zone) // carries a monotonic reading
			lc.LastHeartbeatAt, lc.ExpiresAt = lc.AcquiredAt, lc.ExpiresAt.In(zone)
			in[i].Lease = &lc
		}
	}
	mustAppend(t, l, in...)
	for i, e := range replayAll(t, l, 0) {
		times := map[string][2]time.Time{"At": {e.At, in[i].At}, "ExpiresAt": {e.ExpiresAt, in[i].ExpiresAt}}
		if e.Lease != nil {
			times["Lease.AcquiredAt"] = [2]time.Time{e.Lease.AcquiredAt, in[i].Lease.AcquiredAt}
			times["Lease.ExpiresAt"] = [2]time.Time{e.Lease.ExpiresAt, in[i].Lease.ExpiresAt}
		}
		for name, tt := range times {
			got, want := tt[0], tt[1]
			if !got.Equal(want) {
				t.Errorf("event %d %s replayed as %s, want the instant %s", i+1, name, got, want)
			}
			if !got.IsZero() && got.Location() != time.UTC {
				t.Errorf("event %d %s replayed in zone %s, want UTC", i+1, name, got.Location())
			}
		}
	}
}

func testClosed(t *testing.T, o opener) {
	l, reopen := o.open(t)
	mustAppend(t, l, notes("alice", 1)...)
	mustClose(t, l)
	if _, err := l.Append(context.Background(), notes("alice", 1)...); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("Append after Close = %v, want %v", err, store.ErrClosed)
	}
	if err := l.Replay(context.Background(), 0, func(gate.Event) error { return nil }); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("Replay after Close = %v, want %v", err, store.ErrClosed)
	}
	if got := l.LastSeq(); got != 1 {
		t.Fatalf("LastSeq() after Close = %d, want 1", got)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("second Close() = %v, want nil", err)
	}
	if got := reopen().LastSeq(); got != 1 {
		t.Fatalf("LastSeq() after reopen = %d, want 1 (the Append after Close wrote nothing)", got)
	}
}

func testCancelledContext(t *testing.T, o opener) {
	l, reopen := o.open(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got, err := l.Append(ctx, notes("alice", 2)...); !errors.Is(err, context.Canceled) || got != nil {
		t.Fatalf("Append(cancelled ctx) = %v, %v, want nil, %v", got, err, context.Canceled)
	}
	if got := l.LastSeq(); got != 0 {
		t.Fatalf("LastSeq() after a cancelled Append = %d, want 0", got)
	}
	mustClose(t, l)
	r := reopen()
	if got := replayAll(t, r, 0); len(got) != 0 {
		t.Fatalf("Replay after a cancelled Append yielded %d events, want none", len(got))
	}
	if s := seqs(mustAppend(t, r, notes("alice", 1)...)); !slices.Equal(s, []uint64{1}) {
		t.Fatalf("Append after a cancelled Append seqs = %v, want [1]", s)
	}
	err := r.Replay(ctx, 0, func(gate.Event) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Replay(cancelled ctx) = %v, want %v", err, context.Canceled)
	}
}
