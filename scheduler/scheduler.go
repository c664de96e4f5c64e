package scheduler

import (
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
