package coordinator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// ledgerReserve is the journal room below which a degraded ledger takes
// no more writes: room for what was decided before the refusal and is
// still on its way (about 400 events).
const ledgerReserve = 128 << 10

// degradable is a ledger that reports when it cannot copy its journal
// into its file (store/bolt does).
type degradable interface {
	Degraded() error
	HealthChanged() <-chan struct{}
	Headroom() int64
}

// roomMaker is a ledger that can make sure, before a commit is decided,
// that the disk has room for it (store/bolt can).
type roomMaker interface {
	MakeRoom(evs ...gate.Event) error
}

// admit refuses a write while the ledger's journal has less than
// ledgerReserve of room left: its other segment cannot be reused because
// copying it into the ledger file fails (a full disk) or has not finished.
// It also refuses a commit of evs that needs more journal than the disk
// has room for (a worker's exit releasing thousands of leases at once),
// before its events are applied: the same write failing in the ledger
// would stop the coordinator. Call with c.mu held.
func (c *Coordinator) admit(evs []gate.Event) error {
	d, ok := c.cfg.Ledger.(degradable)
	if !ok {
		return nil
	}
	if d.Headroom() >= ledgerReserve {
		if r, ok := c.cfg.Ledger.(roomMaker); ok {
			if err := r.MakeRoom(evs...); err != nil {
				c.roomRefused = &roomRefusal{events: len(evs), at: c.clock.Now(), err: err}
				return fmt.Errorf("%w: a write of %d events is refused, the journal has no room for it: %w", leasegate.ErrLedgerDegraded, len(evs), err)
			}
			if c.roomRefused != nil && len(evs) >= c.roomRefused.events {
				c.roomRefused = nil
			}
		}
		return nil
	}
	cause := d.Degraded()
	if cause == nil {
		cause = errors.New("the journal's full segment is still being copied into the ledger file")
	}
	return fmt.Errorf("%w: writes are refused until the journal can be copied into the ledger file again (%d bytes of journal left): %w", leasegate.ErrLedgerDegraded, d.Headroom(), cause)
}

// roomRefusal is a commit the journal had no room for (MakeRoom failed: a
// full disk), such as a dead owner's reclaim of thousands of leases. The
// ledger itself is not degraded (its copy may still succeed), so without
// it status would show the owner's leases held with no word of the disk;
// it is kept until a commit at least as large is taken, which the refused
// one, tried again, is.
type roomRefusal struct {
	events int
	at     time.Time
	err    error
}

// ledgerWarning is status's line on a degraded ledger, or on a shared
// one served without its session (etcd unreachable or the session lost:
// writes are held) or whose cluster cannot be reached now, or on a commit refused for want of journal room,
// empty while it is healthy. Call with c.mu held.
func (c *Coordinator) ledgerWarning() string {
	if err := c.serving(); err != nil {
		if u, ok := c.cfg.Ledger.(unreachable); ok {
			if why := u.Unreachable(); why != nil {
				return fmt.Sprintf("%v; %v", err, why)
			}
		}
		return err.Error()
	}
	if u, ok := c.cfg.Ledger.(unreachable); ok {
		if err := u.Unreachable(); err != nil {
			return fmt.Sprintf("%v: writes wait for it; the session ends, and the others reclaim this machine's leases, if it lasts past the session's TTL", err)
		}
	}
	d, ok := c.cfg.Ledger.(degradable)
	if !ok {
		return ""
	}
	cause := d.Degraded()
	if cause == nil && c.roomRefused != nil {
		r := c.roomRefused
		return fmt.Sprintf("the journal has no room for a write of %d events (refused at %s, tried again while it is needed: a worker's end or a dead owner's reclaim); free space on the disk: %v",
			r.events, r.at.UTC().Format(time.RFC3339), r.err)
	}
	if cause == nil {
		return ""
	}
	return fmt.Sprintf("ledger degraded, writes are refused when the journal's last %d KiB are reached (%d KiB left): %v", ledgerReserve>>10, max(d.Headroom(), 0)>>10, cause)
}

// watchLedger records every change of the ledger's health as an event
// (ledger.degraded, ledger.recovered) and in the log, until ctx ends.
func (c *Coordinator) watchLedger(ctx context.Context) {
	d, ok := c.cfg.Ledger.(degradable)
	if !ok {
		return
	}
	if c.leftDegraded && d.Degraded() == nil {
		// The coordinator before this one stopped while its ledger was
		// degraded; opening it copied the journal, so it is healthy now,
		// and without this the history would say degraded for good.
		c.recordLedgerHealth(nil)
	}
	var was error
	for {
		changed := d.HealthChanged()
		if now := d.Degraded(); (now == nil) != (was == nil) {
			c.recordLedgerHealth(now)
			was = now
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}

// noteLedgerHealth keeps, while the ledger is replayed, whether its last
// health event says degraded.
func (c *Coordinator) noteLedgerHealth(e gate.Event) {
	switch e.Type {
	case gate.EventLedgerDegraded:
		c.leftDegraded = true
	case gate.EventLedgerRecovered:
		c.leftDegraded = false
	}
}

func (c *Coordinator) recordLedgerHealth(cause error) {
	ev := gate.Event{Type: gate.EventLedgerRecovered, Actor: "coordinator"}
	if cause != nil {
		ev = gate.Event{Type: gate.EventLedgerDegraded, Actor: "coordinator", Reason: cause.Error()}
		c.log.Warn("ledger degraded: writes will be refused before the journal runs out", "error", cause)
	} else {
		c.refusals.reset() // a new episode's refusals are logged again
	}
	c.mu.Lock()
	ev.At = c.clock.Now().UTC()
	done, err := c.commit([]gate.Event{ev})
	c.mu.Unlock()
	c.finish(string(ev.Type)+" recorded", done, err)
}
