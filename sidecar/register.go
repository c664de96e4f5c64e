package sidecar

import (
	"context"
	"errors"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
)

// registration is what the sidecar registers: its owner, the windows it
// names, and that its worker's tree ends with it (the reaper).
func (s *Sidecar) registration() leasegate.Registration {
	return leasegate.Registration{Owner: s.owner, Windows: s.cfg.Windows, TreeEnds: true}
}

// ownerLost reports whether err says that the coordinator does not know
// the owner: a LEASE_NOT_FOUND that is not about a write it no longer
// holds (api.HoldGoneError), which is said in its own words.
func ownerLost(err error) bool {
	var gone *api.HoldGoneError
	return errors.Is(err, gate.ErrNotFound) && !errors.As(err, &gone)
}

// registerAgain registers the owner again after the coordinator answered
// that it has no such owner (cause): its leases were reclaimed, or the
// coordinator started again on a fresh ledger. The worker's writes stay
// gated: each takes its lease again, by the contention protocol. It tells
// the worker and reports whether the owner is registered now.
func (s *Sidecar) registerAgain(ctx context.Context, cause error) bool {
	s.regMu.Lock()
	defer s.regMu.Unlock()
	s.held.forget()
	if err := s.sess.Register(ctx); err != nil {
		s.notef("the coordinator lost the registration of %s (%v) and registering again failed: %v; writes stay held or refused, never ungated", s.cfg.Name, cause, err)
		return false
	}
	s.notef("the coordinator lost the registration of %s (%v): registered again; writes stay gated, and the files held before must be leased again", s.cfg.Name, cause)
	return true
}
