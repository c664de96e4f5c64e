package scheduler_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/scheduler"
)

// clockKinds are the two clocks every timing test runs on, each inside a
// synctest bubble: the real clock (time inside a bubble is fake and moves
// only when every goroutine in it is blocked, so deadlines are exact), and
// a clock.Mock advanced with Add from the test goroutine alone.
var clockKinds = []struct {
	name string
	// new returns the clock and a function that moves it forward by d.
	new func() (clock.Clock, func(d time.Duration))
}{
	{"real", func() (clock.Clock, func(time.Duration)) { return clock.New(), time.Sleep }},
	{"mock", func() (clock.Clock, func(time.Duration)) {
		m := clock.NewMock()
		m.Set(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
		return m, m.Add
	}},
}

// harness runs one Scheduler inside a synctest bubble.
type harness struct {
	t     *testing.T
	s     *scheduler.Scheduler
	clock clock.Clock
	move  func(time.Duration)
	// start is the clock's reading when Run started; offsets are from it.
	start  time.Time
	cancel context.CancelFunc
	// done closes when Run has returned runErr.
	done   chan struct{}
	runErr error
}

// runEach runs body once per clock kind, each in its own bubble with a
// running Scheduler configured by DefaultConfig changed by edits.
func runEach(t *testing.T, body func(t *testing.T, h *harness), edits ...func(*scheduler.Config)) {
	for _, ck := range clockKinds {
		t.Run(ck.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				clk, move := ck.new()
				body(t, MustStart(t, clk, move, edits...))
			})
		})
	}
}

// MustStart builds a Scheduler on clk and starts it (see harness.run).
// Call it inside a synctest bubble.
func MustStart(t *testing.T, clk clock.Clock, move func(time.Duration), edits ...func(*scheduler.Config)) *harness {
	t.Helper()
	h := newHarness(t, clk, move, edits...)
	h.run()
	return h
}

// newHarness builds a Scheduler on clk without running it; offsets count
// from now.
func newHarness(t *testing.T, clk clock.Clock, move func(time.Duration), edits ...func(*scheduler.Config)) *harness {
	t.Helper()
	return &harness{t: t, s: MustNew(t, clk, edits...), clock: clk, move: move, start: clk.Now(), done: make(chan struct{})}
}

// run starts Run, waits until it is idle and, at cleanup, cancels it and
// checks that it returned nil.
func (h *harness) run() {
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go func() {
		defer close(h.done)
		h.runErr = h.s.Run(ctx)
	}()
	synctest.Wait()
	h.t.Cleanup(func() {
		cancel()
		<-h.done
		if h.runErr != nil {
			h.t.Errorf("Run() = %v, want nil", h.runErr)
		}
	})
}

// returned reports whether Run has returned, once every goroutine of the
// bubble is idle.
func (h *harness) returned() bool {
	synctest.Wait()
	select {
	case <-h.done:
		return true
	default:
		return false
	}
}

// MustNew returns a Scheduler on clk with DefaultConfig changed by edits,
// logging to t.
func MustNew(t *testing.T, clk clock.Clock, edits ...func(*scheduler.Config)) *scheduler.Scheduler {
	t.Helper()
	cfg := scheduler.DefaultConfig()
	cfg.Clock = clk
	cfg.Logger = testLogger(t)
	for _, edit := range edits {
		edit(&cfg)
	}
	s, err := scheduler.New(cfg)
	if err != nil {
		t.Fatalf("New(%+v) = %v", cfg, err)
	}
	return s
}

// advanceTo moves the clock to start+at and waits until the Scheduler has
// fired everything due and is idle again. It first waits for Run to take in
// what the test scheduled: a clock.Mock measures a timer from its Now() at
// creation, so a timer Run arms while Add is under way would fire late.
func (h *harness) advanceTo(at time.Duration) {
	h.t.Helper()
	synctest.Wait()
	d := h.start.Add(at).Sub(h.clock.Now())
	if d < 0 {
		h.t.Fatalf("advanceTo(%s): clock already at %s", at, h.now())
	}
	h.move(d)
	synctest.Wait()
}

// retry schedules key's retry from the clock's now with the contract's
// window.
func (h *harness) retry(key string, fn func(time.Time)) (time.Time, bool) {
	return h.s.ScheduleRetry(key, h.clock.Now(), gate.DefaultRetryAfter, fn)
}

// idle opens owner's stop-idle window from the clock's now with the
// contract's window.
func (h *harness) idle(owner string, fn func(time.Time)) time.Time {
	return h.s.StopIdle(owner, h.clock.Now(), gate.DefaultIdleAfter, fn)
}

// now is the clock's offset from start.
func (h *harness) now() time.Duration { return h.clock.Now().Sub(h.start) }

// calls records when a callback ran, as offsets from a start time.
type calls struct {
	mu    sync.Mutex
	start time.Time
	at    []time.Duration
}

func (h *harness) calls() *calls { return &calls{start: h.start} }

// fn is a callback that records each call.
func (c *calls) fn(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = append(c.at, now.Sub(c.start))
}

// got returns the offsets recorded so far.
func (c *calls) got() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.at...)
}

// count is how many calls were recorded.
func (c *calls) count() int { return len(c.got()) }

// testLogger routes debug logs to t.Log.
func testLogger(t *testing.T) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: "test", Level: hclog.Debug, Output: tWriter{t}})
}

type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}
