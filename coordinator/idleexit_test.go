package coordinator_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// TestWaitIdle: WaitIdle does not return while an owner is registered,
// and returns once the coordinator has been idle for the whole window,
// counted from when it last looked busy, not before.
func TestWaitIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		const after = 30 * time.Second
		done := make(chan error, 1)
		go func() { done <- e.c.WaitIdle(e.ctx, after) }()
		e.advanceTo(5 * time.Minute)
		select {
		case err := <-done:
			t.Fatalf("WaitIdle returned %v with alice and bob registered", err)
		default:
		}
		for _, name := range []string{"alice", "bob"} {
			if _, err := e.c.End(e.ctx, name, "test over"); err != nil {
				t.Fatalf("End(%s) = %v", name, err)
			}
		}
		// The last tick that saw the owners was at 5 min; idle counts from it.
		e.advanceTo(5*time.Minute + after - time.Second)
		select {
		case err := <-done:
			t.Fatalf("WaitIdle returned %v %s into the idle window, want it to wait %s", err, after-time.Second, after)
		default:
		}
		e.advanceTo(5*time.Minute + after)
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("WaitIdle = %v, want nil", err)
			}
		default:
			t.Fatalf("WaitIdle has not returned %s after the last owner ended", after)
		}
	})
}

// TestWaitIdleEndsWithContext: WaitIdle returns ctx's error when ctx ends.
func TestWaitIdleEndsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		ctx, cancel := context.WithCancel(e.ctx)
		done := make(chan error, 1)
		go func() { done <- e.c.WaitIdle(ctx, time.Minute) }()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("WaitIdle after cancel = %v, want %v", err, context.Canceled)
		}
	})
}
