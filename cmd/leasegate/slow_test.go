package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
)

// syncBuffer is a bytes.Buffer written from the clock's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSlowCommandSaysItWaits: a command the coordinator has not answered
// for slowCommand says once that it still waits; one answered before says
// nothing.
func TestSlowCommandSaysItWaits(t *testing.T) {
	clk := clock.NewMock()
	var w syncBuffer
	stop := noteSlow(clk, &w, "acquire", slowCommand)
	clk.Add(slowCommand - time.Millisecond)
	if w.String() != "" {
		t.Fatalf("said %q before %s", w.String(), slowCommand)
	}
	clk.Add(time.Millisecond)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(w.String(), "acquire: no answer from the coordinator for 3s; still waiting") {
		if time.Now().After(deadline) {
			t.Fatalf("said %q at %s, want that it still waits", w.String(), slowCommand)
		}
		time.Sleep(time.Millisecond)
	}
	clk.Add(time.Hour)
	stop()
	if n := strings.Count(w.String(), "no answer"); n != 1 {
		t.Errorf("said it %d times, want once:\n%s", n, w.String())
	}

	var quiet syncBuffer
	noteSlow(clk, &quiet, "release", slowCommand)()
	clk.Add(time.Hour)
	if quiet.String() != "" {
		t.Errorf("a command answered at once said %q", quiet.String())
	}
}
