package api_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
)

// TestSessionLifecycle: a session over the socket registers its owner,
// beats, opens the stop-idle window, takes activity, is registered again
// once the coordinator has forgotten it, and ends, releasing its leases
// and closing Done.
func TestSessionLifecycle(t *testing.T) {
	s := serve(t)
	ctx := bounded(t)
	sess, err := api.NewSession(ctx, s.client, leasegate.Registration{Owner: gate.Owner{Name: "carol"}})
	if err != nil || sess.Name() != "carol" {
		t.Fatalf("NewSession(carol) = %v, name %q; want carol", err, sess.Name())
	}
	if b, err := sess.Heartbeat(ctx); err != nil || b != (leasegate.Beat{Bounded: true, TrustFor: gate.DefaultIdleAfter}) {
		t.Fatalf("Heartbeat() = %+v, %v; want the cache trusted for the owner's stop-idle window, %v", b, err, gate.DefaultIdleAfter)
	}
	s.mutate(t, "carol", "c.txt")
	if at, err := sess.Stop(ctx, "turn ended"); err != nil || !at.After(time.Now().Add(-time.Second)) {
		t.Fatalf("Stop() = %v, %v; want the release time ahead", at, err)
	}
	if err := sess.Activity(ctx); err != nil {
		t.Fatalf("Activity() = %v", err)
	}
	select {
	case <-sess.Done():
		t.Fatal("Done closed before End")
	default:
	}
	if n, err := sess.End(ctx, "worker exited"); err != nil || n != 1 {
		t.Fatalf("End() = %d, %v; want 1 lease released", n, err)
	}
	select {
	case <-sess.Done():
	case <-ctx.Done():
		t.Fatal("Done not closed by End")
	}
	if _, err := sess.Heartbeat(ctx); !errors.Is(err, gate.ErrNotFound) {
		t.Fatalf("Heartbeat() after End = %v, want not found", err)
	}
	if err := sess.Register(ctx); err != nil {
		t.Fatalf("Register() again = %v", err)
	}
	if _, err := sess.Heartbeat(ctx); err != nil {
		t.Fatalf("Heartbeat() after registering again = %v", err)
	}
}

// scriptedOwner answers a session's calls: Join with joinAs, every
// Heartbeat with beat, and counts the calls by owner name.
type scriptedOwner struct {
	mu     sync.Mutex
	joinAs string
	beat   error
	calls  []string // "join", "beat NAME", "end NAME"
}

func (o *scriptedOwner) record(c string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls = append(o.calls, c)
}

func (o *scriptedOwner) seen() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.calls)
}

func (o *scriptedOwner) Join(context.Context, leasegate.Registration) (string, error) {
	o.record("join")
	return o.joinAs, nil
}

func (o *scriptedOwner) Heartbeat(_ context.Context, name string) (leasegate.Beat, error) {
	o.record("beat " + name)
	return leasegate.Beat{}, o.beat
}

func (o *scriptedOwner) Activity(context.Context, string) error { return nil }

func (o *scriptedOwner) Stop(context.Context, string, string) (time.Time, error) {
	return time.Time{}, nil
}

func (o *scriptedOwner) End(_ context.Context, name, _ string) (int, error) {
	o.record("end " + name)
	return 0, errors.New("coordinator gone")
}

// TestSessionActsAsJoinedOwner: a session joined to another owner beats
// and ends as that owner; End closes Done even when the coordinator could
// not be told.
func TestSessionActsAsJoinedOwner(t *testing.T) {
	o := &scriptedOwner{joinAs: "claude-1"}
	sess, err := api.NewSession(context.Background(), o, leasegate.Registration{Owner: gate.Owner{Name: "mcp-7"}, JoinRoot: true})
	if err != nil || sess.Name() != "claude-1" {
		t.Fatalf("NewSession = %v, name %q; want claude-1", err, sess.Name())
	}
	_, _ = sess.Heartbeat(context.Background())
	if _, err := sess.End(context.Background(), "done"); err == nil {
		t.Fatal("End() = nil, want the coordinator's error")
	}
	<-sess.Done()
	if got, want := o.seen(), []string{"join", "beat claude-1", "end claude-1"}; !slices.Equal(got, want) {
		t.Errorf("calls %q, want %q", got, want)
	}
}

// TestSessionKeepAlive: KeepAlive beats once per interval, hands each
// beat's error to heard, and returns when the session ends.
func TestSessionKeepAlive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := &scriptedOwner{joinAs: "alice", beat: gate.ErrNotFound}
		sess := api.ResumeSession(o, leasegate.Registration{Owner: gate.Owner{Name: "alice"}}, "alice")
		var heard []error
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel() // ends a KeepAlive that End failed to end
		ended := make(chan struct{})
		go func() {
			defer close(ended)
			sess.KeepAlive(ctx, clock.New(), 2*time.Second, func(_ time.Time, _ leasegate.Beat, err error) { heard = append(heard, err) })
		}()
		time.Sleep(7 * time.Second)
		synctest.Wait()
		if len(heard) != 3 || !errors.Is(heard[0], gate.ErrNotFound) {
			t.Fatalf("heard %v in 7 s of 2 s beats, want 3 not-found errors", heard)
		}
		_, _ = sess.End(context.Background(), "exit")
		synctest.Wait()
		select {
		case <-ended:
		default:
			t.Fatal("KeepAlive goes on after End")
		}
	})
}
