package sidecar

import (
	"context"
	"time"

	"github.com/leasegate/leasegate"
)

// fence bounds how long the leases the worker holds, as cached, answer its
// writes without a fresh word from the coordinator. On a lease table that
// other machines share (etcd), they are granted this worker's files once
// its coordinator's session lapses, whether or not that coordinator can
// still tell its sidecars: a coordinator paused (SIGSTOP, or a whole
// machine paused) cuts no event stream. Each heartbeat's answer says how
// long the session is sure to live; counted from when the heartbeat was
// sent, which is no later than the answer, the cache stops answering
// before the session can lapse. A write it no longer answers goes to the
// coordinator, which holds it until it has a session again (fail closed).
//
// The zero fence trusts nothing: until a heartbeat is answered every
// gated write is asked of the coordinator.
type fence struct {
	heard   bool      // a heartbeat was answered
	bounded bool      // the answer bounds the cache: until applies
	until   time.Time // on the sidecar's clock
	session uint64    // the coordinator's session at the answer
}

// hear takes the coordinator's answer b to a heartbeat sent at sent. An
// answer naming another session than the last one also drops the cache:
// its leases were granted under an earlier session, and the event stream
// that tells of their reclaim may not have been cut yet.
func (h *held) hear(sent time.Time, b leasegate.Beat) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fence.heard && b.Session != h.fence.session {
		h.forgetLocked()
	}
	h.fence = fence{heard: true, bounded: b.Bounded, until: sent.Add(b.TrustFor), session: b.Session}
}

// trustedLocked reports whether the cache may answer now. Call with h.mu
// held.
func (h *held) trustedLocked() bool {
	f := h.fence
	return f.heard && (!f.bounded || h.clk.Now().Before(f.until))
}

// beat beats once and takes the answer's bound on the cache; run does it
// before the worker starts, so the cache is not untrusted for the
// heartbeat interval. A beat that fails leaves the cache untrusted until
// the heartbeat loop is answered.
func (s *Sidecar) beat(ctx context.Context) {
	sent := s.cfg.Clock.Now()
	b, err := s.sess.Heartbeat(ctx)
	if err != nil {
		s.log.Warn("first heartbeat failed: writes are asked of the coordinator until one is answered", "error", err)
		return
	}
	s.held.hear(sent, b)
}
