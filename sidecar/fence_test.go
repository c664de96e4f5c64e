package sidecar

import (
	"context"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/intercept"
	"github.com/leasegate/leasegate/internal/servicetest"
)

// TestCacheFencedByHeartbeat: on a lease table shared with other machines
// a granted path is answered from the cache only while the coordinator's
// last heartbeat answer vouches for it (TrustFor from when the beat was
// sent); once that has passed the write is asked of the coordinator, and
// a fresh answer lets the cache answer again. An answer without a session
// trusts nothing, and one naming a new session drops the cache.
func TestCacheFencedByHeartbeat(t *testing.T) {
	svc := servicetest.New()
	svc.Mutates = []servicetest.Answer{servicetest.Granted("alice", "src/b.go")}
	svc.Beat = leasegate.Beat{Bounded: true, TrustFor: 5 * time.Second, Session: 1}
	s, _ := fakeSidecar(t, svc)
	clk := s.cfg.Clock.(*clock.Mock)
	m := write(s, intercept.OpOpenWrite, "src/b.go")
	asks := func(step string, want int) {
		t.Helper()
		if err := s.Decide(context.Background(), m); err != nil {
			t.Fatalf("%s: Decide(write src/b.go) = %v", step, err)
		}
		if n := svc.Count("Mutate"); n != want {
			t.Fatalf("%s: Mutate called %d times, want %d", step, n, want)
		}
	}
	instant := func(step string, want bool) {
		t.Helper()
		if got, err := s.DecideNow(m); err != nil || got != want {
			t.Fatalf("%s: DecideNow(write src/b.go) = %t, %v; want %t", step, got, err, want)
		}
	}
	s.beat(context.Background())
	asks("first write", 1)
	clk.Add(4 * time.Second)
	instant("4 s after the beat", true)
	asks("4 s after the beat", 1)
	clk.Add(time.Second)
	instant("5 s after the beat", false)
	asks("5 s after the beat", 2)
	s.beat(context.Background())
	instant("after a fresh beat", true)
	asks("after a fresh beat", 2)

	svc.Beat = leasegate.Beat{Bounded: true} // the coordinator has no session
	s.beat(context.Background())
	instant("without a session", false)
	asks("without a session", 3)

	svc.Beat = leasegate.Beat{Bounded: true, TrustFor: 5 * time.Second, Session: 2}
	s.beat(context.Background())
	instant("on a new session", false)
	asks("on a new session", 4)
	instant("granted on the new session", true)
}

// TestCacheUntrustedUntilHeard: until a heartbeat is answered (the first
// one failed) every write is asked of the coordinator; an answer without
// bound (a coordinator of one machine) trusts the cache for good.
func TestCacheUntrustedUntilHeard(t *testing.T) {
	svc := servicetest.New()
	svc.Mutates = []servicetest.Answer{servicetest.Granted("alice", "src/b.go")}
	s, _ := fakeSidecar(t, svc)
	clk := s.cfg.Clock.(*clock.Mock)
	s.held = newHeld(clk)
	m := write(s, intercept.OpOpenWrite, "src/b.go")
	for i := range 2 {
		if err := s.Decide(context.Background(), m); err != nil {
			t.Fatalf("Decide(write src/b.go) #%d = %v", i, err)
		}
	}
	if n := svc.Count("Mutate"); n != 2 {
		t.Fatalf("Mutate called %d times before any heartbeat was answered, want 2", n)
	}
	s.beat(context.Background())
	clk.Add(time.Hour)
	if got, _ := s.DecideNow(m); !got {
		t.Fatal("DecideNow(write src/b.go) an hour after an unbounded answer = false, want answered from the cache")
	}
}
