package api_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// collect reads the event stream after seq without following it.
func collect(t *testing.T, s *testServer, after uint64) []gate.Event {
	t.Helper()
	var evs []gate.Event
	if err := s.client.Events(context.Background(), after, false, func(e gate.Event) error { evs = append(evs, e); return nil }); err != nil {
		t.Fatalf("Events(%d, false) = %v", after, err)
	}
	return evs
}

// checkOrder checks that evs carry consecutive seqs from first.
func checkOrder(t *testing.T, evs []gate.Event, first uint64) {
	t.Helper()
	for i, e := range evs {
		if e.Seq != first+uint64(i) {
			t.Fatalf("event %d has seq %d, want %d (in order, none missing)", i, e.Seq, first+uint64(i))
		}
	}
}

// TestEventsBacklog: the stream without follow delivers the committed
// events after the given seq, in order, the same as the history.
func TestEventsBacklog(t *testing.T) {
	s := serve(t)
	s.mutate(t, "alice", "src/a.go")
	s.checkout(t, "carol", 0, "docs/**")
	all := collect(t, s, 0)
	hist, err := s.client.History(context.Background(), gate.NoLease, "", 0)
	if err != nil {
		t.Fatalf("History() = %v", err)
	}
	if len(all) != len(hist) || len(all) < 5 {
		t.Fatalf("Events(0) gave %d events, history %d; want the same, at least 5", len(all), len(hist))
	}
	checkOrder(t, all, 1)
	for i := range all {
		if all[i].Type != hist[i].Type || all[i].Seq != hist[i].Seq {
			t.Fatalf("event %d is %s #%d, history has %s #%d", i, all[i].Type, all[i].Seq, hist[i].Type, hist[i].Seq)
		}
	}
	tail := collect(t, s, 3)
	if len(tail) != len(all)-3 {
		t.Fatalf("Events(3) gave %d events, want %d", len(tail), len(all)-3)
	}
	checkOrder(t, tail, 4)
}

// TestEventsFollow: following the stream delivers events committed after
// it started, in order, with none of the backlog repeated, until ctx ends.
func TestEventsFollow(t *testing.T) {
	s := serve(t)
	s.mutate(t, "alice", "a.txt")
	st, err := s.client.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan gate.Event, 100)
	ended := make(chan error, 1)
	go func() {
		ended <- s.client.Events(ctx, st.LastSeq, true, func(e gate.Event) error { got <- e; return nil })
	}()
	s.mutate(t, "bob", "b.txt")
	l := s.checkout(t, "carol", 0, "docs/**")
	want := []gate.EventType{gate.EventGranted, gate.EventGranted}
	var evs []gate.Event
	timeout := time.After(10 * time.Second)
	for len(evs) < len(want) {
		select {
		case e := <-got:
			evs = append(evs, e)
		case <-timeout:
			t.Fatalf("followed %d events in 10 s, want %d", len(evs), len(want))
		}
	}
	checkOrder(t, evs, st.LastSeq+1)
	if evs[0].Lease.Owner.Name != "bob" || evs[1].Lease.ID != l.ID {
		t.Fatalf("followed %s of %s then %s, want bob's grant then carol's check-out", evs[0].Type, evs[0].Lease.Owner.Name, evs[1].Lease.ID)
	}
	cancel()
	if err := <-ended; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("Events() after cancel = %v, want nil", err)
	}
	select {
	case e := <-got:
		t.Fatalf("unexpected event %s #%d", e.Type, e.Seq)
	default:
	}
}

// TestEventsFollowDeliversNotices: a notice for an owner (here an
// eviction) reaches a follower, which reads it with NoticeOf.
func TestEventsFollowDeliversNotices(t *testing.T) {
	s := serve(t)
	l := s.checkout(t, "carol", 0, "docs/**")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	notices := make(chan leasegate.Notice, 1)
	ended := make(chan error, 1)
	go func() {
		ended <- s.client.Events(ctx, 0, true, func(e gate.Event) error {
			if e.Type == gate.EventNotice {
				notices <- leasegate.NoticeOf(e)
			}
			return nil
		})
	}()
	evict := leasegate.LeaseRequest{Op: gate.OpEvict, Owner: gate.Owner{Name: "ops"}, LeaseID: l.ID, Reason: "reassigned", Admin: "root"}
	if _, err := s.client.Lease(context.Background(), evict); err != nil {
		t.Fatalf("evict = %v", err)
	}
	select {
	case n := <-notices:
		if n.Owner != "carol" || n.Kind != leasegate.NoticeEvicted || n.LeaseID != l.ID {
			t.Fatalf("notice %+v, want carol's eviction of %s", n, l.ID)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no eviction notice on the stream in 10 s")
	}
	cancel()
	<-ended
}
