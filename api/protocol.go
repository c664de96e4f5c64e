package api

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// Observer hears the stages of a gated mutation. Any field may be nil.
type Observer struct {
	// Contended is called once when the mutation is denied and its one
	// retry is scheduled (the contention heartbeat).
	Contended func(leasegate.Result)
	// Blocked is called when the retry found the path still held and a
	// blocker report is open. Returning false stops waiting and returns the
	// Blocked result (hooks do this); true holds for an operator (run does).
	Blocked func(leasegate.Result) bool
	// Unavailable is called each time the coordinator cannot be reached;
	// the mutation waits and tries again, it never proceeds ungated.
	Unavailable func(err error, attempt int)
	// Slow is called once per request for the mutation (the first and the
	// one a forgotten contention asks again) that the coordinator has
	// taken and not answered within SlowAfter: one whose ledger does not
	// answer (etcd unreachable while its session lasts) or that is
	// paused. The mutation still waits for the answer. Zero SlowAfter
	// means never.
	Slow      func(waited time.Duration)
	SlowAfter time.Duration
	// Clock times SlowAfter; nil means the real clock.
	Clock clock.Clock
	// Log hears a withdrawal that failed; nil means nowhere.
	Log hclog.Logger
}

// Mutator is the part of a coordinator the contention protocol needs;
// every leasegate.Service has it.
type Mutator interface {
	Mutate(ctx context.Context, req leasegate.MutateRequest) (leasegate.Result, error)
	WaitContention(ctx context.Context, id string) (leasegate.Result, error)
	Withdraw(ctx context.Context, id, reason string) (leasegate.Result, error)
	WaitBlocker(ctx context.Context, id string) (leasegate.Result, error)
}

// pollWait is how long one long-poll waits before asking again.
const pollWait = 30 * time.Second

// Gate runs the whole contention protocol for one mutation over m and
// returns its final result: Granted, Denied, Aborted, or Blocked if
// obs.Blocked said not to hold. It fails closed: while the coordinator is
// unreachable (ErrUnavailable) it waits and retries until ctx ends, and
// then returns ctx's error, never a grant.
func Gate(ctx context.Context, m Mutator, req leasegate.MutateRequest, obs Observer) (leasegate.Result, error) {
	if obs.Log == nil {
		obs.Log = hclog.NewNullLogger()
	}
	if obs.Clock == nil {
		obs.Clock = clock.New()
	}
	c := protocol{m: m, obs: obs}
	r, err := retryUnavailable(ctx, obs, func() (leasegate.Result, error) { return c.mutate(ctx, req) })
	if err != nil {
		return r, err
	}
	if r.Outcome == leasegate.Contended {
		if obs.Contended != nil {
			obs.Contended(r)
		}
		if r, err = c.awaitContention(ctx, req, r); err != nil {
			return r, err
		}
	}
	if r.Outcome == leasegate.Blocked {
		if obs.Blocked != nil && !obs.Blocked(r) {
			return r, nil
		}
		return c.awaitBlocker(ctx, r)
	}
	return r, nil
}

// protocol is one mutation's run of the contention protocol.
type protocol struct {
	m   Mutator
	obs Observer
}

func (c protocol) awaitContention(ctx context.Context, req leasegate.MutateRequest, r leasegate.Result) (leasegate.Result, error) {
	for r.Outcome == leasegate.Contended {
		id := r.Contention.ID
		var err error
		r, err = retryUnavailable(ctx, c.obs, func() (leasegate.Result, error) { return c.m.WaitContention(ctx, id) })
		if ctx.Err() != nil {
			c.withdrawGone(ctx, id)
			return r, ctx.Err()
		}
		if errors.Is(err, gate.ErrNotFound) || (err == nil && r.Outcome == leasegate.Withdrawn) {
			// The coordinator restarted and forgot the contention, or
			// another waiter of the same write withdrew it: ask again.
			r, err = retryUnavailable(ctx, c.obs, func() (leasegate.Result, error) { return c.mutate(ctx, req) })
		}
		if err != nil {
			return r, err
		}
	}
	return r, nil
}

// mutate asks the coordinator for req, telling obs.Slow if the answer
// takes longer than obs.SlowAfter. The timer ends with the call.
func (c protocol) mutate(ctx context.Context, req leasegate.MutateRequest) (leasegate.Result, error) {
	if c.obs.Slow != nil && c.obs.SlowAfter > 0 {
		t := c.obs.Clock.AfterFunc(c.obs.SlowAfter, func() { c.obs.Slow(c.obs.SlowAfter) })
		defer t.Stop()
	}
	return c.m.Mutate(ctx, req)
}

// withdrawTimeout bounds the withdrawal of a contention whose waiter gave up.
const withdrawTimeout = 5 * time.Second

// withdrawGone tells the coordinator that no one waits on contention id
// any more because ctx ended (the cause says why): its write will not be
// made, so the retry must not run and no lease be taken for it.
func (c protocol) withdrawGone(ctx context.Context, id string) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), withdrawTimeout)
	defer cancel()
	why := "its waiter gave up"
	if cause := context.Cause(ctx); cause != nil && cause != context.Canceled {
		why = cause.Error()
	}
	if _, err := c.m.Withdraw(wctx, id, why); err != nil {
		c.obs.Log.Debug("withdrawing a contention failed", "contention", id, "error", err)
	}
}

func (c protocol) awaitBlocker(ctx context.Context, r leasegate.Result) (leasegate.Result, error) {
	id := r.Blocker.ID
	con := r.Contention
	for r.Outcome == leasegate.Blocked {
		var err error
		r, err = retryUnavailable(ctx, c.obs, func() (leasegate.Result, error) { return c.m.WaitBlocker(ctx, id) })
		if ctx.Err() != nil && con != nil {
			c.withdrawGone(ctx, con.ID) // the blocker closes: no one is halted on it
			return r, ctx.Err()
		}
		if errors.Is(err, gate.ErrNotFound) {
			return r, &HoldGoneError{Blocker: id, Err: err}
		}
		if err != nil {
			return r, err
		}
	}
	return r, nil
}

// HoldGoneError is Gate's error when the coordinator holds no more the
// write a blocker halted: it started again since, and the blocker was
// resolved meanwhile with the lease its retry granted gone, or its ledger
// lost the blocker. The write waits nowhere; its caller may ask for it
// again, through Gate, as a new write. Err is the coordinator's answer
// (LEASE_NOT_FOUND), so errors.Is(err, gate.ErrNotFound) holds: it is not
// the owner that the coordinator lost.
type HoldGoneError struct {
	Blocker string
	Err     error
}

func (e *HoldGoneError) Error() string {
	return fmt.Sprintf("the coordinator no longer holds the write halted by blocker %s (%v)", e.Blocker, e.Err)
}

func (e *HoldGoneError) Unwrap() error { return e.Err }

// retryUnavailable repeats fn while the coordinator is unavailable, with
// backoff up to 5 s, until ctx ends.
func retryUnavailable(ctx context.Context, obs Observer, fn func() (leasegate.Result, error)) (leasegate.Result, error) {
	wait := 250 * time.Millisecond
	for attempt := 1; ; attempt++ {
		r, err := fn()
		if !errors.Is(err, ErrUnavailable) {
			return r, err
		}
		if obs.Unavailable != nil {
			obs.Unavailable(err, attempt)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return leasegate.Result{}, ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// Is lets errors.Is(apiErr, blocker.ErrNotOpen) match BLOCKER_NOT_OPEN.
func (e *APIError) Is(target error) bool {
	return target == blocker.ErrNotOpen && e.Body.Error.Code == CodeNotOpen
}
