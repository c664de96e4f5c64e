package coordinator_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
	"github.com/leasegate/leasegate/store/bolt"
)

// prober is the far side of the liveness boundary: verdicts the test sets.
type prober struct {
	mu   sync.Mutex
	dead map[string]bool
}

func (p *prober) Evaluate(s liveness.Subject, now time.Time) gate.Liveness {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dead[s.Owner.Name] {
		return gate.Liveness{Status: gate.Dead, CheckedAt: now, Evidence: []string{"pid gone (test)"}}
	}
	return gate.Liveness{Status: gate.Alive, CheckedAt: now, Evidence: []string{"running (test)"}}
}

func (p *prober) kill(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dead[name] = true
}

// run opens a coordinator with the contract's default windows on the
// bubble's clock and runs it until the test ends.
func run(t *testing.T) (*coordinator.Coordinator, *prober, context.Context) {
	t.Helper()
	ledger, err := bolt.Open(filepath.Join(t.TempDir(), "ledger.db"), bolt.Config{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	p := &prober{dead: map[string]bool{}}
	cfg := coordinator.DefaultConfig()
	cfg.Ledger, cfg.Liveness, cfg.BlockerDir = ledger, p, t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	c, err := coordinator.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = c.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	for _, name := range []string{"alice", "bob"} {
		if err := c.Register(ctx, leasegate.Registration{Owner: gate.Owner{Name: name}}); err != nil {
			t.Fatal(err)
		}
	}
	return c, p, ctx
}

func mutate(t *testing.T, c *coordinator.Coordinator, ctx context.Context, owner, path string) leasegate.Result {
	t.Helper()
	r, err := c.Mutate(ctx, leasegate.MutateRequest{Owner: owner, Op: "write", Paths: []string{path}})
	if err != nil {
		t.Fatalf("Mutate(%s, %s): %v", owner, path, err)
	}
	return r
}

func TestDefaultsAreTheContract(t *testing.T) {
	cfg := coordinator.DefaultConfig()
	if w := cfg.Windows; w.Retry.After != 180*time.Second || w.Idle.After != 30*time.Second {
		t.Fatalf("defaults retry %s idle %s, want 3m0s and 30s", w.Retry.After, w.Idle.After)
	}
}

// TestContentionBlocksAfterOneRetry: denied → heartbeat, one retry at
// exactly +180 s (not before, joined not repeated) → still held → blocker;
// --deny answers the held mutation.
func TestContentionBlocksAfterOneRetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, _, ctx := run(t)
		if r := mutate(t, c, ctx, "alice", "src/a.go"); r.Outcome != leasegate.Granted || len(r.Leases) != 2 {
			t.Fatalf("alice's first write = %s with %d leases, want granted with the pair", r.Outcome, len(r.Leases))
		}
		r := mutate(t, c, ctx, "bob", "src/a.go")
		if r.Outcome != leasegate.Contended || r.Contention.RetryAt.Sub(r.Contention.FirstDeniedAt) != 180*time.Second {
			t.Fatalf("bob's write = %s, want contended with the retry 180s after the denial", r.Outcome)
		}
		if again := mutate(t, c, ctx, "bob", "src/a.go"); again.Contention.ID != r.Contention.ID {
			t.Fatal("a repeated denied mutation started a second contention")
		}
		time.Sleep(180*time.Second - time.Millisecond)
		synctest.Wait()
		short, cancel := context.WithTimeout(ctx, time.Microsecond)
		early, _ := c.WaitContention(short, r.Contention.ID)
		cancel()
		if early.Outcome != leasegate.Contended {
			t.Fatalf("1ms before the retry the contention is %s, want still contended", early.Outcome)
		}
		res, err := c.WaitContention(ctx, r.Contention.ID)
		if err != nil || res.Outcome != leasegate.Blocked {
			t.Fatalf("after the retry: %s, %v; want blocked", res.Outcome, err)
		}
		if res.Blocker.RetryInterval != 180*time.Second || res.Blocker.Holder.Owner.Name != "alice" {
			t.Fatalf("blocker interval %s holder %s", res.Blocker.RetryInterval, res.Blocker.Holder.Owner.Name)
		}
		evs, _ := c.History(ctx, "", "src/a.go", 0)
		if n := count(evs, gate.EventRetry); n != 1 {
			t.Fatalf("%d retries in the ledger, want exactly 1", n)
		}
		if n := count(evs, gate.EventContention); n != 1 {
			t.Fatalf("%d contention heartbeats, want 1", n)
		}
		if _, err := c.Resolve(ctx, res.Blocker.ID, blocker.ActionDeny, "op", ""); err != nil {
			t.Fatal(err)
		}
		if w, _ := c.WaitBlocker(ctx, res.Blocker.ID); w.Outcome != leasegate.Denied {
			t.Fatalf("held mutation after --deny = %s, want denied", w.Outcome)
		}
		if _, err := c.Resolve(ctx, res.Blocker.ID, blocker.ActionRetry, "op", ""); !errors.Is(err, blocker.ErrNotOpen) {
			t.Fatalf("resolving a resolved blocker: %v, want ErrNotOpen", err)
		}
	})
}

// TestRetryGrantedAfterRelease: the holder ends within the window; the one
// retry grants.
func TestRetryGrantedAfterRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, _, ctx := run(t)
		mutate(t, c, ctx, "alice", "a.txt")
		r := mutate(t, c, ctx, "bob", "a.txt")
		time.Sleep(time.Minute)
		if _, err := c.End(ctx, "alice", "worker exited"); err != nil {
			t.Fatal(err)
		}
		res, err := c.WaitContention(ctx, r.Contention.ID)
		if err != nil || res.Outcome != leasegate.Granted {
			t.Fatalf("retry = %s, %v; want granted", res.Outcome, err)
		}
	})
}

// TestDeadHolderReclaimed: a holder the prober finds dead loses its lease
// to the next request at once, with evidence.
func TestDeadHolderReclaimed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, p, ctx := run(t)
		mutate(t, c, ctx, "alice", "a.txt")
		p.kill("alice")
		if r := mutate(t, c, ctx, "bob", "a.txt"); r.Outcome != leasegate.Granted {
			t.Fatalf("bob's write after alice died = %s, want granted", r.Outcome)
		}
		evs, _ := c.History(ctx, "", "a.txt", 0)
		if count(evs, gate.EventReclaimed) != 1 {
			t.Fatal("no reclaim recorded")
		}
	})
}

// TestStopIdle: 30 s after a stop with no mutation the owner's auto leases
// are released; a mutation at 29 s cancels the release.
func TestStopIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, _, ctx := run(t)
		mutate(t, c, ctx, "alice", "a.txt")
		if _, err := c.Stop(ctx, "alice", "turn ended"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(29 * time.Second)
		mutate(t, c, ctx, "alice", "a.txt")
		time.Sleep(time.Hour)
		synctest.Wait()
		if n := len(mustStatus(t, c).Leases); n != 1 {
			t.Fatalf("%d leases after activity cancelled stop-idle, want 1", n)
		}
		if _, err := c.Stop(ctx, "alice", "turn ended"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(30*time.Second - time.Millisecond)
		synctest.Wait()
		if n := len(mustStatus(t, c).Leases); n != 1 {
			t.Fatalf("released before 30 s: %d leases", n)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		time.Sleep(10 * time.Millisecond) // the release commits
		if n := len(mustStatus(t, c).Leases); n != 0 {
			t.Fatalf("%d leases 30 s after the stop, want 0", n)
		}
	})
}

// TestCheckoutReminderAndExpiry: one reminder 2 h before expiry; expired at
// 72 h by the sweep, not before.
func TestCheckoutReminderAndExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, _, ctx := run(t)
		res, err := c.Lease(ctx, leasegate.LeaseRequest{Op: gate.OpAcquire, Owner: gate.Owner{Name: "carol"},
			Scope: gate.Scope{Type: gate.ScopeSparse, Paths: []string{"docs/**"}}})
		if err != nil {
			t.Fatal(err)
		}
		id := res.Leases[0].ID
		time.Sleep(70*time.Hour - time.Second)
		synctest.Wait()
		evs, _ := c.History(ctx, id, "", 0)
		if count(evs, gate.EventReminded) != 0 {
			t.Fatal("reminder before 70 h")
		}
		time.Sleep(time.Hour + time.Second)
		synctest.Wait()
		evs, _ = c.History(ctx, id, "", 0)
		if count(evs, gate.EventReminded) != 1 || count(evs, gate.EventNotice) != 1 {
			t.Fatalf("reminders at 71 h: %d (notices %d), want exactly 1", count(evs, gate.EventReminded), count(evs, gate.EventNotice))
		}
		time.Sleep(time.Hour - 2*time.Second)
		synctest.Wait()
		if l, _ := leaseOf(c, id); l.State != gate.StateActive {
			t.Fatalf("lease %s before 72 h", l.State)
		}
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if l, _ := leaseOf(c, id); l.State != gate.StateExpired {
			t.Fatalf("lease %s after 72 h and a sweep, want expired", l.State)
		}
	})
}

func count(evs []gate.Event, typ gate.EventType) int {
	n := 0
	for _, e := range evs {
		if e.Type == typ {
			n++
		}
	}
	return n
}
