package coordinator

import (
	"context"
	"encoding/json"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

func notice(owner string, kind leasegate.NoticeKind, at time.Time, msg string) gate.Event {
	data, _ := json.Marshal(map[string]string{"message": msg})
	return gate.Event{Type: gate.EventNotice, At: at, Actor: owner, Reason: string(kind), Data: data}
}

func leaseNotice(l gate.Lease, kind leasegate.NoticeKind, at time.Time, msg string) gate.Event {
	e := notice(l.Owner.Name, kind, at, msg)
	e.LeaseID = l.ID
	return e
}

// RecordUndelivered records in the ledger that a notice could not be
// delivered to the webhook; the notice itself is already in the ledger.
func (c *Coordinator) RecordUndelivered(ctx context.Context, n leasegate.Notice, cause error) error {
	c.mu.Lock()
	data, _ := json.Marshal(map[string]any{"seq": n.Seq, "kind": n.Kind, "error": cause.Error()})
	done, err := c.commit([]gate.Event{{Type: gate.EventNoticeUndelivered, At: c.clock.Now(), Actor: n.Owner, LeaseID: n.LeaseID, Reason: cause.Error(), Data: data}})
	c.mu.Unlock()
	if err != nil {
		return err
	}
	return durable(ctx, done)
}
