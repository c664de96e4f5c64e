package sidecar

import (
	"context"
	"errors"
	"path"
	"strings"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
	"github.com/leasegate/leasegate/workspace"
)

// endTimeout bounds the final release when the worker ends.
const endTimeout = 10 * time.Second

// commitSettle is how long after the last ref update the commit release
// runs, so git has finished writing the commit.
const commitSettle = 300 * time.Millisecond

// heartbeats beats for the owner, and starts the coordinator again (with
// Config.Restart) when a beat finds it gone: a crashed or killed
// coordinator is back within a beat or two, and the writes it left held,
// which wait and retry meanwhile, go on.
func (s *Sidecar) heartbeats(ctx context.Context) {
	down := false // the coordinator was found gone and has not answered since
	s.sess.KeepAlive(ctx, s.cfg.Clock, s.cfg.HeartbeatEvery, func(sent time.Time, b leasegate.Beat, err error) {
		s.followRule()
		switch {
		case err == nil:
			s.held.hear(sent, b)
			if down {
				s.notef("the coordinator answers again")
			}
			down = false
		case errors.Is(err, gate.ErrNotFound):
			s.registerAgain(ctx, err)
		case errors.Is(err, api.ErrUnavailable) && s.cfg.Restart != nil:
			if !down {
				s.notef("%v; starting the coordinator again, gated writes wait meanwhile", err)
			}
			down = true
			if err := s.cfg.Restart(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("starting the coordinator failed", "error", err)
			}
		default:
			s.log.Warn("heartbeat failed", "error", err)
		}
	})
}

// followRule takes an operator's edit of leasegate.json into the gate,
// once a beat: what is gated changes for this worker's next writes (a
// path it holds stays gated). A file that does not load is said once, and
// the gate keeps its rule until the file is mended.
func (s *Sidecar) followRule() {
	changed, err := s.rule.Follow()
	switch {
	case err != nil && !s.ruleBroken:
		s.ruleBroken = true
		s.notef("%v; writes stay gated by the rule before it until it is mended", err)
	case err == nil && changed:
		s.ruleBroken = false
		s.notef("%s changed what is gated: this worker's writes follow it", workspace.ConfigFile)
	case err == nil:
		s.ruleBroken = false
	}
}

// notices relays the owner's notices (reminders, evictions, reclaims,
// blockers) from the event stream, reconnecting until ctx ends.
func (s *Sidecar) notices(ctx context.Context) {
	after := s.leasedSeq
	for ctx.Err() == nil {
		err := s.cfg.Client.Events(ctx, after, true, func(e gate.Event) error {
			after = e.Seq
			s.observe(e)
			return nil
		})
		if ctx.Err() != nil {
			return
		}
		s.held.forget() // events may have been missed while reconnecting
		s.log.Debug("event stream ended", "error", err)
		if sleep(ctx, time.Second) {
			after = s.followAgain(ctx, after)
		}
	}
}

// followAgain replaces the mirror of every owner's leases with the
// coordinator's table before a cut stream is followed again, and returns
// the sequence number to follow from: after, or the ledger's last when it
// is below it. A coordinator cuts the stream when the shared ledger went
// back (etcd wiped, or restored from an older snapshot) and serves the
// table as etcd holds it now; the events after after would not say so (a
// lease the ledger lost has no end event, one it holds again no new
// grant), and those numbered up to after are skipped. The events from
// after on, replayed over the table, change nothing it already shows:
// each grant and end is applied once by lease id. When the table cannot
// be had the mirror is kept, and the stream's replay brings what it
// missed.
func (s *Sidecar) followAgain(ctx context.Context, after uint64) uint64 {
	st, err := s.cfg.Client.Status(ctx)
	if err != nil {
		s.log.Debug("active leases not read again before following the events again", "error", err)
		return after
	}
	s.leased.reset(st.Leases)
	if st.LastSeq < after {
		s.log.Warn("the ledger went back: following the lease table as it holds it now", "last-seen-seq", after, "ledger-last-seq", st.LastSeq)
	}
	return min(after, st.LastSeq)
}

// observe applies one event of the stream: the leases it starts or ends,
// a change of what git ignores, and the owner's notices.
func (s *Sidecar) observe(e gate.Event) {
	s.leased.apply(e)
	if s.endsMine(e) {
		s.held.forget()
	}
	if s.changesIgnores(e) {
		s.rule.Invalidate()
	}
	if e.Type != gate.EventNotice || e.Actor != s.cfg.Name {
		return
	}
	n := leasegate.NoticeOf(e)
	switch {
	case n.Kind == leasegate.NoticeBlocked && strings.HasPrefix(n.Message, "blocked on "):
		// The blocked mutation's own report is printed by the observer.
	case s.halted():
		s.notef("%s: %s", n.Kind, n.Message) // the worker is stopped: its screen is still
	default:
		s.holderNotef(e.At, "%s: %s", n.Kind, n.Message)
	}
}

// changesIgnores reports whether an event says that what git ignores may
// have changed under another writer: a rule file another worker wrote
// (rule.changed), or a .gitignore written where no sidecar gates (an
// ungated write the watcher saw). This sidecar's git reads the ignore
// files once, and its own writes of them invalidate the rule as they are
// made; without this, a path another writer stopped ignoring would stay
// ungated for this worker.
func (s *Sidecar) changesIgnores(e gate.Event) bool {
	switch e.Type {
	case gate.EventRuleChanged:
		return e.Actor != s.cfg.Name
	case gate.EventUngatedWrite:
		return path.Base(e.Path) == ".gitignore"
	}
	return false
}

// endsMine reports whether an event can end one of this worker's leases,
// or take part of one away (a narrowing of its new directory's lease).
func (s *Sidecar) endsMine(e gate.Event) bool {
	switch e.Type {
	case gate.EventOwnerStopped, gate.EventOwnerGone, gate.EventNotice:
		return e.Actor == s.cfg.Name
	case gate.EventNarrowed:
		return e.Lease == nil || e.Lease.HeldBy(s.cfg.Name)
	}
	return e.Type.EndsLease() // cheap to refill; ids are not worth tracking
}

// watchStopped opens the stop-idle window when the worker's whole process
// tree is stopped (and not by a blocker halt), and reports activity when
// it runs again.
func (s *Sidecar) watchStopped(ctx context.Context) {
	t := time.NewTicker(s.cfg.StopPoll)
	defer t.Stop()
	stopped := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now, err := liveness.TreeStopped(s.sup.Pid())
		if err != nil || s.halted() || now == stopped {
			continue
		}
		stopped = now
		if now {
			s.held.forget()
			if r, err := s.sess.Stop(ctx, "process tree stopped"); err == nil {
				s.notef("worker stopped: its leases are released at %s unless it resumes", r.UTC().Format(time.RFC3339))
			}
		} else {
			_ = s.sess.Activity(ctx)
		}
	}
}

// watchCommits releases the worker's leases on committed, clean files
// after it updates a branch.
func (s *Sidecar) watchCommits(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.commits:
		}
		if !sleep(ctx, commitSettle) {
			return
		}
		s.held.forget()
		ls, err := s.cfg.Client.ReleaseCommitted(ctx, s.cfg.Name)
		if err != nil {
			s.log.Warn("release on commit failed", "error", err)
			continue
		}
		if len(ls) > 0 {
			s.notef("commit: released %d lease(s) on committed files", len(ls))
		}
	}
}

// sleep waits d or until ctx ends; it reports whether d elapsed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
