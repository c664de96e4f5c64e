package leasegate

import (
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

// NoticeFree tells that the file a halted write waits for is free: an
// operator's `resolve ID --retry` grants it.
const NoticeFree NoticeKind = "free"

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

// NoticeOf reads a notice event.
func NoticeOf(e gate.Event) Notice {
	var d struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(e.Data, &d)
	return Notice{Owner: e.Actor, Kind: NoticeKind(e.Reason), At: e.At, LeaseID: e.LeaseID, Message: d.Message, Seq: e.Seq}
}
