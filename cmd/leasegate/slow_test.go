package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
)

// lines hands each write to the test; the mock clock runs a timer's
// function on a goroutine of its own.
type lines chan string

func (l lines) Write(p []byte) (int, error) {
	l <- string(p)
	return len(p), nil
}

// TestSlowCommandSaysItWaits: a command the coordinator has not answered
// for slowCommand says once that it still waits; one answered before says
// nothing.
func TestSlowCommandSaysItWaits(t *testing.T) {
	clk := clock.NewMock()
	said := make(lines, 4)
	stop := noteSlow(clk, said, "acquire", slowCommand)
	clk.Add(slowCommand - time.Millisecond)
	select {
	case s := <-said:
		t.Fatalf("said %q before %s", s, slowCommand)
	default:
	}
	clk.Add(time.Millisecond)
	select {
	case s := <-said:
		if !strings.Contains(s, "acquire: no answer from the coordinator for 3s; still waiting") {
			t.Errorf("said %q at %s, want that it still waits", s, slowCommand)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("said nothing at %s", slowCommand)
	}
	clk.Add(time.Hour)
	stop()
	noteSlow(clk, said, "release", slowCommand)() // answered at once
	clk.Add(time.Hour)
	select {
	case s := <-said:
		t.Errorf("said %q again, or of a command answered at once", s)
	case <-time.After(50 * time.Millisecond):
	}
}

// TestInterruptedSaysSo: a command interrupted while it waits for the
// coordinator says so, not "context canceled", and one that changes
// something says the request may still be carried out; any other error,
// or one while the command was not interrupted, is left as it is.
func TestInterruptedSaysSo(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	err := fmt.Errorf("acquire: %w", context.Canceled)
	if got := interrupted(ctx, "acquire", err); got != err {
		t.Errorf("not interrupted: %v, want it as it was", got)
	}
	cancel()
	if got := interrupted(ctx, "acquire", err); !strings.Contains(got.Error(), "interrupted before the coordinator answered; it may still carry the request out") {
		t.Errorf("acquire interrupted: %v", got)
	}
	if got := interrupted(ctx, "status", err); got.Error() != "status: interrupted before the coordinator answered" {
		t.Errorf("status interrupted: %v", got)
	}
	other := errors.New("LEASE_HELD_BY_OTHER")
	if got := interrupted(ctx, "acquire", other); got != other {
		t.Errorf("another error: %v, want it as it was", got)
	}
}
