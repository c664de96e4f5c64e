package coordinator

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// WentBackShown is how long status says that the shared ledger went back,
// from when it was found, also in a coordinator started afterwards (which
// reads it from the ledger.went_back events): the contract's 72 h
// check-out TTL, by when every lease it lost would have ended unless
// renewed. There is no acknowledgement to end it sooner: status shows it
// to every operator, and one who saw it cannot know that the others did;
// a warning that ended when its coordinator restarted (an idle exit, a
// crash) could be missed by all of them. Longer would keep warning of
// leases nobody holds any more.
const WentBackShown = 72 * time.Hour

// wentBackData is what a ledger.went_back event carries beyond its lease
// and path (Data), so that a coordinator started later can say it again:
// the finding, and the lease this event records lost (none in the event
// of a ledger that lost none).
type wentBackData struct {
	FoundAt   time.Time            `json:"found_at"`
	Seen      uint64               `json:"seen_seq"`
	Ends      uint64               `json:"ends_seq"`
	Cause     string               `json:"cause"`
	LostCount int                  `json:"lost_count"`
	Lost      *leasegate.LostLease `json:"lost,omitempty"`
}

// wentBack keeps what the coordinator found when the shared ledger last
// went back, for status, and whether the ledger records it yet.
type wentBack struct {
	view leasegate.WentBack
	// unrecorded: the ledger.went_back events are still to be committed
	// (follow commits them once the table is rebuilt).
	unrecorded bool
	// recorded are the lost leases another coordinator's ledger.went_back
	// events already name ("" for one naming none): each is recorded once.
	recorded map[gate.LeaseID]bool
}

// noteWentBack keeps what the ledger lost: the leases active in before
// (the committed fold as it was) that are not in after (as the ledger now
// holds it); recorded are the lost leases the ledger's ledger.went_back
// events already name. Call with c.mu held.
func (c *Coordinator) noteWentBack(before, after *gate.Table, seen uint64, cause error, recorded map[gate.LeaseID]bool) {
	v := leasegate.WentBack{At: c.clock.Now().UTC(), Seen: seen, Ends: after.LastSeq(), Cause: cause.Error()}
	for _, l := range before.Active() {
		if now, ok := after.Lease(l.ID); ok && now.State == gate.StateActive {
			continue
		}
		v.LostCount++
		if len(v.Lost) < leasegate.MaxLostShown {
			v.Lost = append(v.Lost, lostLease(l))
		}
	}
	c.wentBack = &wentBack{view: v, unrecorded: true, recorded: recorded}
	select {
	case c.wentBackNudge <- struct{}{}:
	default:
	}
}

func lostLease(l gate.Lease) leasegate.LostLease {
	paths := slices.Clone(l.Scope.Paths)
	if l.Scope.Type == gate.ScopeFull {
		paths = []string{"**"}
	}
	return leasegate.LostLease{ID: l.ID, Owner: l.Owner.Name, Kind: l.Kind, Paths: paths}
}

// wentBackView is status's account of the ledger going back, nil when it
// has not. Call with c.mu held.
func (c *Coordinator) wentBackView(now time.Time) *leasegate.WentBack {
	if c.wentBack == nil || now.Sub(c.wentBack.view.At) >= WentBackShown {
		return nil
	}
	v := c.wentBack.view
	v.Lost = slices.Clone(v.Lost)
	return &v
}

// noteForeignWentBack marks the lost lease another coordinator's
// ledger.went_back event records, so that this one does not record it
// again. Call with c.mu held.
func (c *Coordinator) noteForeignWentBack(e gate.Event) {
	if e.Type == gate.EventLedgerWentBack && c.wentBack != nil {
		c.wentBack.recorded[e.LeaseID] = true
	}
}

// wentBackEvents are the ledger.went_back events still to be committed:
// one per lost lease listed (so the history of its id and path shows it),
// or one naming none; those another coordinator recorded are left out.
// Call with c.mu held.
func (c *Coordinator) wentBackEvents() []gate.Event {
	wb := c.wentBack
	if wb == nil || !wb.unrecorded {
		return nil
	}
	base := gate.Event{Type: gate.EventLedgerWentBack, At: c.clock.Now().UTC(), Actor: "coordinator on " + c.host(), Reason: wb.view.Summary()}
	d := wentBackData{FoundAt: wb.view.At, Seen: wb.view.Seen, Ends: wb.view.Ends, Cause: wb.view.Cause, LostCount: wb.view.LostCount}
	if len(wb.view.Lost) == 0 && !wb.recorded[gate.NoLease] {
		base.Data, _ = json.Marshal(d)
		return []gate.Event{base}
	}
	var evs []gate.Event
	for _, l := range wb.view.Lost {
		if !wb.recorded[l.ID] {
			e := base
			e.LeaseID, e.Path = l.ID, l.Paths[0]
			d.Lost = &l
			e.Data, _ = json.Marshal(d)
			evs = append(evs, e)
		}
	}
	return evs
}

// replayWentBack keeps, from the ledger.went_back events replayed at Open,
// the last finding that the shared ledger went back, with the leases its
// events name lost, so that status says it again (for WentBackShown)
// after the coordinator that found it stopped. Events recorded without
// the finding (before they carried it) are left out. Call with c.mu held,
// or before the coordinator runs.
func (c *Coordinator) replayWentBack(e gate.Event) {
	var d wentBackData
	if e.Type != gate.EventLedgerWentBack || json.Unmarshal(e.Data, &d) != nil || d.FoundAt.IsZero() {
		return
	}
	wb := c.wentBack
	if wb == nil || d.FoundAt.After(wb.view.At) {
		wb = &wentBack{view: leasegate.WentBack{At: d.FoundAt.UTC(), Seen: d.Seen, Ends: d.Ends, Cause: d.Cause, LostCount: d.LostCount},
			recorded: map[gate.LeaseID]bool{}}
		c.wentBack = wb
	} else if !d.FoundAt.Equal(wb.view.At) {
		return // an earlier finding
	}
	wb.recorded[e.LeaseID] = true
	if d.Lost != nil && len(wb.view.Lost) < leasegate.MaxLostShown && !slices.ContainsFunc(wb.view.Lost, func(l leasegate.LostLease) bool { return l.ID == d.Lost.ID }) {
		wb.view.Lost = append(wb.view.Lost, *d.Lost)
	}
}

// recordWentBack commits the ledger.went_back events, deciding again
// after a lost race, and reports whether none is left to commit; follow
// tries again after followRetry what it cannot commit now (no session yet
// on a wiped etcd, or etcd unreachable).
func (c *Coordinator) recordWentBack(ctx context.Context) bool {
	_, err := again(ctx, c, func() (struct{}, error) {
		c.mu.Lock()
		wb, evs := c.wentBack, c.wentBackEvents()
		var done <-chan error
		var err error
		if len(evs) > 0 {
			done, err = c.commit(evs)
		}
		c.mu.Unlock()
		if err == nil {
			err = durable(ctx, done)
		}
		if err == nil && wb != nil {
			c.mu.Lock()
			wb.unrecorded = false // not a later one's, which startOver put in its place meanwhile
			c.mu.Unlock()
		}
		return struct{}{}, err
	})
	if err != nil && ctx.Err() == nil {
		c.log.Debug("recording that the shared ledger went back failed; trying again", "error", err)
	}
	return err == nil
}
