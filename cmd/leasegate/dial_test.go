package main

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/leasegate/leasegate/workspace"
)

// waitRun runs wait in a goroutine on a mock clock and advances the clock
// in 10 ms steps to at, failing the test if wait returns before at; it
// returns wait's answer at at.
func waitRun(t *testing.T, mock *clock.Mock, at time.Duration, wait func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- wait() }()
	start := mock.Now()
	for mock.Now().Sub(start) < at {
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("the wait returned %v after %s, want it to return after %s", err, mock.Now().Sub(start), at)
		default:
		}
		mock.Add(10 * time.Millisecond)
	}
	synctest.Wait()
	select {
	case err := <-done:
		return err
	default:
		t.Fatalf("the wait has not returned after %s", at)
		return nil
	}
}

// TestWaitFor: waitFor answers at its first look after ready holds (looks
// are 50 ms apart on the command's clock), and gives up once its limit has
// passed.
func TestWaitFor(t *testing.T) {
	tests := []struct {
		name       string
		readyAfter time.Duration
		never      bool
		limit      time.Duration
		at         time.Duration
		want       error
	}{
		{name: "ready from the start", limit: time.Second, at: 0},
		{name: "ready just after the first look", readyAfter: time.Nanosecond, limit: time.Second, at: 50 * time.Millisecond},
		{name: "ready between looks", readyAfter: 120 * time.Millisecond, limit: time.Second, at: 150 * time.Millisecond},
		{name: "ready at the last look", readyAfter: 10 * time.Second, limit: 10 * time.Second, at: 10 * time.Second},
		{name: "never ready", never: true, limit: 10 * time.Second, at: 10 * time.Second, want: errWaitLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mock := clock.NewMock()
				start := mock.Now()
				c := &common{clock: mock}
				ready := func() bool { return !tt.never && !mock.Now().Before(start.Add(tt.readyAfter)) }
				err := waitRun(t, mock, tt.at, func() error { return c.waitFor(t.Context(), tt.limit, ready) })
				if !errors.Is(err, tt.want) {
					t.Fatalf("waitFor = %v, want %v", err, tt.want)
				}
			})
		})
	}
}

// TestWaitForEndsWithContext: waitFor returns ctx's error when ctx ends.
func TestWaitForEndsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &common{clock: clock.NewMock()}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- c.waitFor(ctx, time.Minute, func() bool { return false }) }()
		synctest.Wait()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("waitFor after cancel = %v, want %v", err, context.Canceled)
		}
	})
}

// TestWaitStopped: waitStopped waits while a coordinator holds the serve
// lock, returns at its next look once the lock is free, and says how long
// it waited when the lock is held past stopWait.
func TestWaitStopped(t *testing.T) {
	ws := &workspace.Workspace{Root: t.TempDir()}
	ws.StateDir = filepath.Join(ws.Root, "state")
	if err := ws.EnsureStateDir(); err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		lock, err := ws.LockServe()
		if err != nil {
			t.Fatalf("LockServe() = %v", err)
		}
		defer lock.Close()
		mock := clock.NewMock()
		c := &common{clock: mock}
		err = waitRun(t, mock, stopWait, func() error { return c.waitStopped(t.Context(), ws) })
		if want := "still serves after 15s"; err == nil || err.Error() != want {
			t.Fatalf("waitStopped with the lock held = %v, want %q", err, want)
		}
		done := make(chan error, 1)
		go func() { done <- c.waitStopped(t.Context(), ws) }()
		synctest.Wait()
		mock.Add(time.Second)
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("waitStopped = %v with the lock held", err)
		default:
		}
		lock.Close()
		mock.Add(pollEvery)
		synctest.Wait()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("waitStopped after the lock was released = %v, want nil", err)
			}
		default:
			t.Fatal("waitStopped has not returned at its first look after the lock was released")
		}
	})
}
