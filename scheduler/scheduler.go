package scheduler

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/hashicorp/go-hclog"
)

var (
	// ErrClosed is returned by Run on a Scheduler that was closed or whose
	// Run already returned: a Scheduler runs once.
	ErrClosed = errors.New("scheduler closed")
	// ErrRunning is returned by a second Run while the first is running.
	ErrRunning = errors.New("scheduler already running")
)

// Scheduler fires retries, stop-idle releases, reminders and sweeps at
// their due times. Its methods are safe for concurrent use, including from
// inside its callbacks. Timers may be scheduled before Run starts; they fire
// once it runs (at once, if already due).
type Scheduler struct {
	cfg   Config
	clock clock.Clock
	log   hclog.Logger
	// wake tells Run that a new entry became the earliest one.
	wake chan struct{}
	// stop closes when the Scheduler closes; done when Run returns.
	stop, done chan struct{}

	mu        sync.Mutex
	q         queue
	retries   map[string]*entry
	idles     map[string]*entry
	reminders map[string]*entry
	// reminded holds, per key, the expiry whose reminder already fired, so
	// that the same expiry is never reminded twice.
	reminded map[string]time.Time
	sweepFn  func(now time.Time)
	running  bool
	closed   bool
	// inCallback is set while Run is firing an entry it took from q.
	inCallback bool
}

// Stats counts pending timers, for status output.
type Stats struct {
	Retries   int `json:"retries"`
	Idles     int `json:"idles"`
	Reminders int `json:"reminders"`
}

// New returns a Scheduler for cfg, which must be valid; nil Clock and
// Logger mean the real clock and no logging.
func New(cfg Config) (*Scheduler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("scheduler config: %w", err)
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.New()
	}
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	return &Scheduler{
		cfg: cfg, clock: cfg.Clock, log: cfg.Logger.Named("scheduler"),
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		retries: make(map[string]*entry), idles: make(map[string]*entry),
		reminders: make(map[string]*entry), reminded: make(map[string]time.Time),
	}, nil
}

// Run fires timers and runs the sweep every SweepEvery (the first one
// SweepEvery after Run starts) until ctx ends or Close is called, then
// returns nil. Callbacks run on Run's goroutine, one at a time. Run may be
// called once; afterwards the Scheduler is closed and nothing fires again.
func (s *Scheduler) Run(ctx context.Context) error {
	if err := s.start(); err != nil {
		return err
	}
	defer s.finish()
	var t *clock.Timer
	defer func() { stopTimer(t) }()
	for {
		s.fireDue(ctx)
		stopTimer(t)
		var due bool
		if t, due = s.armTimer(ctx); due {
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-s.stop:
			return nil
		case <-timerC(t):
		case <-s.wake:
		}
	}
}

// Close stops the Scheduler: no callback starts after Close returns, and
// Run returns. If Run is not inside a callback, Close waits for Run to
// return; if it is (Close may be called from a callback, or while holding a
// lock a callback waits for), Close returns at once and Run returns when
// that callback does. Close is idempotent.
func (s *Scheduler) Close() {
	s.mu.Lock()
	wait := s.running && !s.inCallback
	s.closeLocked()
	s.mu.Unlock()
	if wait {
		<-s.done
	}
}

// Pending counts the timers waiting to fire.
func (s *Scheduler) Pending() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{Retries: len(s.retries), Idles: len(s.idles), Reminders: len(s.reminders)}
}

func (s *Scheduler) start() error {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return ErrClosed
	case s.running:
		return ErrRunning
	}
	s.running = true
	s.armSweep(now)
	s.log.Debug("scheduler running", "sweep-every", s.cfg.SweepEvery)
	return nil
}

func (s *Scheduler) finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeLocked()
	s.running = false
	close(s.done)
	s.log.Debug("scheduler stopped")
}

func (s *Scheduler) closeLocked() {
	if !s.closed {
		s.closed = true
		close(s.stop)
	}
}

// fireDue runs every entry that is due, one at a time, reading the clock
// before each so that an entry made due by a slow callback runs too.
func (s *Scheduler) fireDue(ctx context.Context) {
	for {
		fn, now, ok := s.takeDue(ctx)
		if !ok {
			return
		}
		if fn != nil {
			fn(now)
		}
		s.mu.Lock()
		s.inCallback = false
		s.mu.Unlock()
	}
}

// takeDue removes the earliest entry if it is due and the Scheduler is
// still open, and returns the callback to run for it (nil: nothing to run).
func (s *Scheduler) takeDue(ctx context.Context) (func(time.Time), time.Time, bool) {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || ctx.Err() != nil {
		return nil, now, false
	}
	e := s.q.popDue(now)
	if e == nil {
		return nil, now, false
	}
	s.inCallback = true
	return s.take(e, now), now, true
}

// take unindexes a due entry and returns its callback. Call with s.mu held.
func (s *Scheduler) take(e *entry, now time.Time) func(time.Time) {
	s.log.Debug("timer fired", "kind", e.kind, "key", e.key, "due", e.due, "late-by", now.Sub(e.due))
	switch e.kind {
	case kindRetry:
		delete(s.retries, e.key)
	case kindIdle:
		delete(s.idles, e.key)
	case kindReminder:
		return s.takeReminder(e, now)
	case kindSweep:
		s.rearmSweep(e, now)
		return s.sweepFn
	}
	return e.fn
}

// armTimer starts a clock timer for the earliest entry. It returns nil
// when nothing is pending or the Scheduler is stopping, and nil, true when
// the earliest entry is already due (it became due after fireDue looked):
// Run then fires it without a timer, so no zero-length timer is created. The
// delay is measured from the Now() it is computed from, so the timer never
// fires before the entry is due.
func (s *Scheduler) armTimer(ctx context.Context) (t *clock.Timer, due bool) {
	now := s.clock.Now()
	s.mu.Lock()
	e := s.q.next()
	stopping := s.closed || ctx.Err() != nil
	s.mu.Unlock()
	switch {
	case e == nil || stopping:
		return nil, false
	case !now.Before(e.due):
		return nil, true
	}
	return s.clock.Timer(e.due.Sub(now)), false
}

// push queues e and wakes Run if e is now the earliest. Call with s.mu
// held.
func (s *Scheduler) push(e *entry) {
	if s.q.push(e) {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// cancel removes the entry of key from m and the queue, reporting whether
// one was pending. Call with s.mu held.
func (s *Scheduler) cancel(m map[string]*entry, key string) bool {
	e := m[key]
	if e == nil {
		return false
	}
	delete(m, key)
	s.q.remove(e)
	s.log.Debug("timer cancelled", "kind", e.kind, "key", key)
	return true
}

func stopTimer(t *clock.Timer) {
	if t != nil {
		t.Stop()
	}
}

func timerC(t *clock.Timer) <-chan time.Time {
	if t == nil {
		return nil
	}
	return t.C
}
