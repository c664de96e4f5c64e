package coordinator

import (
	"context"
	"encoding/json"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// NoticeKind says why an owner is being told something.
type NoticeKind string

const (
	NoticeReminder  NoticeKind = "reminder"  // a check-out lease expires in 2 h
	NoticeExpired   NoticeKind = "expired"   // a check-out lease expired
	NoticeEvicted   NoticeKind = "evicted"   // an admin evicted a lease
	NoticeReclaimed NoticeKind = "reclaimed" // the owner was found dead
	NoticeBlocked   NoticeKind = "blocked"   // a mutation is blocked on the owner's lease, or the owner is blocked
)

// Notice is a message for one owner. It is a ledger event (type "notice"),
// so it reaches the owner's sidecar through the event stream and the
// webhook, and is kept in the audit trail.
type Notice struct {
	Owner   string       `json:"owner"`
	Kind    NoticeKind   `json:"kind"`
	At      time.Time    `json:"at"`
	LeaseID gate.LeaseID `json:"lease_id,omitempty"`
	Message string       `json:"message"`
	Seq     uint64       `json:"seq,omitempty"`
}

func notice(owner string, kind NoticeKind, at time.Time, msg string) gate.Event {
	data, _ := json.Marshal(map[string]string{"message": msg})
	return gate.Event{Type: gate.EventNotice, At: at, Actor: owner, Reason: string(kind), Data: data}
}

func leaseNotice(l gate.Lease, kind NoticeKind, at time.Time, msg string) gate.Event {
	e := notice(l.Owner.Name, kind, at, msg)
	e.LeaseID = l.ID
	return e
}

// NoticeOf reads a notice event.
func NoticeOf(e gate.Event) Notice { return noticeOf(e) }

func noticeOf(e gate.Event) Notice {
	var d struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(e.Data, &d)
	return Notice{Owner: e.Actor, Kind: NoticeKind(e.Reason), At: e.At, LeaseID: e.LeaseID, Message: d.Message, Seq: e.Seq}
}

// RecordUndelivered records in the ledger that a notice could not be
// delivered to the webhook; the notice itself is already in the ledger.
func (c *Coordinator) RecordUndelivered(ctx context.Context, n Notice, cause error) error {
	c.mu.Lock()
	data, _ := json.Marshal(map[string]any{"seq": n.Seq, "kind": n.Kind, "error": cause.Error()})
	done, err := c.commit([]gate.Event{{Type: gate.EventNoticeUndelivered, At: c.clock.Now(), Actor: n.Owner, LeaseID: n.LeaseID, Reason: cause.Error(), Data: data}})
	c.mu.Unlock()
	if err != nil {
		return err
	}
	return durable(ctx, done)
}
