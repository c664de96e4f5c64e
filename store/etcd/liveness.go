package etcd

import (
	"context"
	"errors"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// ErrNoSession is returned by Session while this ledger's session is
// lost: its lease expired (or may have: no keep-alive was answered within
// its TTL) and no new one has been granted yet.
var ErrNoSession = errors.New("no etcd session")

// sessionState is what Session reports; guarded by Ledger.sessMu.
type sessionState struct {
	gen   uint64           // counts the sessions started
	lease clientv3.LeaseID // the current session's
	live  bool             // false from a loss until the next session starts
	until time.Time        // the lease lives at most until then unless renewed
}

// Session returns the number of the current session (it grows with every
// new one) and ErrNoSession while there is none. A session counts as lost
// from the moment its TTL has passed since the last keep-alive answer, so
// a writer paused or cut off for longer sees it at once, before the
// client library notices.
func (l *Ledger) Session() (uint64, error) {
	gen, _, err := l.SessionLeft()
	return gen, err
}

// SessionLeft is Session with how long the current session is still sure
// to live unless it is renewed: its TTL less a margin (trusted) from the
// last keep-alive answer, less the time since.
func (l *Ledger) SessionLeft() (uint64, time.Duration, error) {
	l.sessMu.Lock()
	defer l.sessMu.Unlock()
	s := l.sess
	left := time.Until(s.until)
	if !s.live || left <= 0 {
		return s.gen, 0, fmt.Errorf("%w: session %d of host %s lapsed", ErrNoSession, s.gen, l.cfg.Host)
	}
	return s.gen, left, nil
}

// SessionChanged signals each loss and each new session.
func (l *Ledger) SessionChanged() <-chan struct{} { return l.sessCh }

// started records a new session of lease id.
func (l *Ledger) started(id clientv3.LeaseID, until time.Time) {
	l.sessMu.Lock()
	l.sess = sessionState{gen: l.sess.gen + 1, lease: id, live: true, until: until}
	l.sessMu.Unlock()
	l.signalSession()
}

// lapsed marks the session of lease id lost, unless another replaced it;
// it reports whether it did. It takes no commitMu, so that the loss is
// told at once even while a commit waits for the cluster.
func (l *Ledger) lapsed(id clientv3.LeaseID) bool {
	l.sessMu.Lock()
	if l.sess.lease != id {
		l.sessMu.Unlock()
		return false
	}
	l.sess.live = false
	l.sessMu.Unlock()
	l.signalSession()
	return true
}

func (l *Ledger) signalSession() {
	select {
	case l.sessCh <- struct{}{}:
	default:
	}
}

func (l *Ledger) extend(until time.Time) {
	l.sessMu.Lock()
	defer l.sessMu.Unlock()
	if l.sess.live && until.After(l.sess.until) {
		l.sess.until = until
	}
}

// trusted is how long after a keep-alive answer the session counts as
// live: its TTL less a margin for the answer's way back, since etcd counts
// the TTL from when it renewed the lease, a little before the answer
// arrives. Keep-alives go out every third of the TTL, so a healthy
// session never reaches it.
func trusted(ttl time.Duration) time.Duration { return ttl - min(ttl/4, time.Second) }

// keep follows the keep-alive answers of lease id. The client library
// closes alive when the lease has expired, when no answer came within the
// TTL, or when its context ends (clientv3.Lease.KeepAlive); a timer at the
// TTL past the last answer catches a pause of the whole process at once.
// Either way the session is lost and a new one is started.
func (l *Ledger) keep(id clientv3.LeaseID, ttl time.Duration, alive <-chan *clientv3.LeaseKeepAliveResponse, stop context.CancelFunc) {
	defer stop()
	t := time.NewTimer(trusted(ttl))
	defer t.Stop()
	for {
		select {
		case r, ok := <-alive:
			if !ok {
				l.lose(id, "the keep-alive ended")
				return
			}
			if r.ResponseHeader != nil {
				l.revisionAnswered(r.Revision)
			}
			notify(l.answered)
			d := trusted(time.Duration(r.TTL) * time.Second)
			l.extend(time.Now().Add(d))
			t.Reset(d)
		case <-t.C:
			l.lose(id, "no keep-alive answered within the TTL")
			return
		case <-l.ctx.Done():
			return
		}
	}
}

// lose marks the session of lease id lost, unless it was replaced
// already, and starts new ones until one is granted or the ledger closes.
func (l *Ledger) lose(id clientv3.LeaseID, why string) {
	if !l.lapsed(id) {
		return
	}
	l.log.Warn("etcd session lost: granting stops until a new one is up", "lease", fmt.Sprintf("%x", int64(id)), "why", why)
	for l.ctx.Err() == nil {
		l.commitMu.Lock()
		if l.lease != id {
			l.commitMu.Unlock()
			return // a commit refused for the lost lease started a new one
		}
		err := l.startSession(l.ctx)
		if err == nil && l.conflict == nil {
			// Others may have reclaimed this writer's leases meanwhile:
			// nothing is committed until it has caught up.
			l.conflict = &ConflictError{Seen: l.last.Load(), SessionLost: true}
		}
		l.commitMu.Unlock()
		if err == nil {
			return
		}
		l.log.Error("no new etcd session yet; retrying", "error", err)
		select {
		case <-l.ctx.Done():
		case <-time.After(time.Second):
		}
	}
}
