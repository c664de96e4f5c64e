package api

import (
	"context"
	"sync"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/leasegate/leasegate"
)

// Owner is what an owner's session needs of a coordinator; every
// leasegate.Service has it.
type Owner interface {
	Join(ctx context.Context, r leasegate.Registration) (string, error)
	Heartbeat(ctx context.Context, name string) (leasegate.Beat, error)
	Activity(ctx context.Context, name string) error
	Stop(ctx context.Context, name, reason string) (time.Time, error)
	End(ctx context.Context, name, reason string) (int, error)
}

// Session is one owner's life with a coordinator, in the shape of etcd's
// concurrency.Session: it begins with a registration (NewSession), is
// kept by heartbeats (KeepAlive), is registered again when the
// coordinator has forgotten the owner (Register), opens its stop-idle
// window when the worker stops (Stop), and is over once it ends (End):
// Done is closed then. `leasegate run` keeps one for its whole run; an
// agent hook, a process per call, takes up the one an earlier call
// registered (ResumeSession).
type Session struct {
	c   Owner
	reg leasegate.Registration

	mu   sync.Mutex
	name string // the owner it acts as: the coordinator's answer to the registration

	done    chan struct{}
	endOnce sync.Once
}

// NewSession registers reg with c and returns its session.
func NewSession(ctx context.Context, c Owner, reg leasegate.Registration) (*Session, error) {
	s := ResumeSession(c, reg, reg.Name)
	if err := s.Register(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// ResumeSession returns the session of reg, registered before (by an
// earlier hook call) as the owner name, without registering anything.
func ResumeSession(c Owner, reg leasegate.Registration, name string) *Session {
	return &Session{c: c, reg: reg, name: name, done: make(chan struct{})}
}

// Name is the owner the session acts as: its registration's name, or with
// JoinRoot the live owner the coordinator joined it to.
func (s *Session) Name() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.name
}

// Registration is what the session registers.
func (s *Session) Registration() leasegate.Registration { return s.reg }

// Register registers the session's owner (again: after the coordinator
// answered that it has no such owner, its leases were reclaimed or it
// started on a fresh ledger), and learns the owner it acts as.
func (s *Session) Register(ctx context.Context) error {
	name, err := s.c.Join(ctx, s.reg)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.name = name
	return nil
}

// Heartbeat tells the coordinator the owner is alive and returns its
// answer.
func (s *Session) Heartbeat(ctx context.Context) (leasegate.Beat, error) {
	return s.c.Heartbeat(ctx, s.Name())
}

// Activity reports work other than a mutation; it cancels a pending
// stop-idle release.
func (s *Session) Activity(ctx context.Context) error { return s.c.Activity(ctx, s.Name()) }

// Stop opens the owner's stop-idle window and returns when its leases will
// be released unless it works again before then.
func (s *Session) Stop(ctx context.Context, reason string) (time.Time, error) {
	return s.c.Stop(ctx, s.Name(), reason)
}

// End releases the owner's auto leases and returns how many, and ends the
// session (Done is closed) whether or not the coordinator could be told:
// the leases of an owner that is gone are reclaimed anyway.
func (s *Session) End(ctx context.Context, reason string) (int, error) {
	defer s.endOnce.Do(func() { close(s.done) })
	return s.c.End(ctx, s.Name(), reason)
}

// Done is closed when the session has ended.
func (s *Session) Done() <-chan struct{} { return s.done }

// KeepAlive beats for the owner every interval on clk until ctx ends or
// the session ends, and passes heard when each beat was sent (on clk), the
// coordinator's answer and the beat's error (nil for a beat the
// coordinator took); heard decides what a failed beat calls for (a
// forgotten owner: Register; an unreachable coordinator: start it again).
func (s *Session) KeepAlive(ctx context.Context, clk clock.Clock, every time.Duration, heard func(sent time.Time, b leasegate.Beat, err error)) {
	t := clk.Ticker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.done:
			return
		case <-t.C:
		}
		sent := clk.Now()
		b, err := s.Heartbeat(ctx)
		if ctx.Err() != nil {
			return
		}
		heard(sent, b, err)
	}
}
