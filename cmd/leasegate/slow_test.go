package main

import (
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
