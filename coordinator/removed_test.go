package coordinator_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// flagAnchor is a workspace whose removal the test decides.
type flagAnchor struct{ why atomic.Value }

func (a *flagAnchor) Removed() string {
	why, _ := a.why.Load().(string)
	return why
}

// TestWaitRemoved: WaitRemoved does not return while the workspace is
// there, and returns its anchor's reason at the first look after the
// workspace is removed, one second apart on the coordinator's clock.
func TestWaitRemoved(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		a := &flagAnchor{}
		type result struct {
			why string
			err error
		}
		done := make(chan result, 1)
		go func() {
			why, err := e.c.WaitRemoved(e.ctx, a)
			done <- result{why, err}
		}()
		e.advanceTo(time.Minute + 500*time.Millisecond)
		select {
		case r := <-done:
			t.Fatalf("WaitRemoved = %q, %v with the workspace there", r.why, r.err)
		default:
		}
		a.why.Store("/repo was removed")
		e.advanceTo(time.Minute + 999*time.Millisecond)
		select {
		case r := <-done:
			t.Fatalf("WaitRemoved = %q, %v before its next look", r.why, r.err)
		default:
		}
		e.advanceTo(time.Minute + time.Second)
		select {
		case r := <-done:
			if r.why != "/repo was removed" || r.err != nil {
				t.Fatalf("WaitRemoved = %q, %v, want %q, nil", r.why, r.err, "/repo was removed")
			}
		default:
			t.Fatal("WaitRemoved has not returned a second after the workspace was removed")
		}
	})
}

// TestWaitRemovedEndsWithContext: WaitRemoved returns ctx's error when ctx
// ends.
func TestWaitRemovedEndsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		ctx, cancel := context.WithCancel(e.ctx)
		done := make(chan error, 1)
		go func() { _, err := e.c.WaitRemoved(ctx, &flagAnchor{}); done <- err }()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("WaitRemoved after cancel = %v, want %v", err, context.Canceled)
		}
	})
}
