package gate

import (
	"encoding/json"
	"strings"
	"time"
)

// EventType names a ledger event. Lease events start with "lease."; the
// projection (Table) ignores every other type, which the ledger still keeps
// for the audit trail.
type EventType string

const (
	EventGranted   EventType = "lease.granted"   // Lease set
	EventRenewed   EventType = "lease.renewed"   // LeaseID, ExpiresAt
	EventReleased  EventType = "lease.released"  // LeaseID, Actor (the holder), Reason
	EventCompleted EventType = "lease.completed" // LeaseID, Actor (the holder)
	EventExpired   EventType = "lease.expired"   // LeaseID
	EventEvicted   EventType = "lease.evicted"   // LeaseID, Actor (the admin), Reason
	EventReclaimed EventType = "lease.reclaimed" // LeaseID, Reason, Data (liveness evidence)
	EventReminded  EventType = "lease.reminded"  // LeaseID
	EventNarrowed  EventType = "lease.narrowed"  // LeaseID, Lease (as narrowed), Actor (the owner whose write narrowed it), Path (what it asked for), Reason

	EventOwnerRegistered    EventType = "owner.registered" // Actor, Data (owner)
	EventOwnerStopped       EventType = "owner.stopped"    // Actor
	EventOwnerGone          EventType = "owner.gone"       // Actor, Reason, Data (evidence)
	EventContention         EventType = "contention.heartbeat"
	EventRetry              EventType = "contention.retry"
	EventContentionWoken    EventType = "contention.woken"     // Actor (the requester), LeaseID (the lease that ended), Reason (how), Data
	EventContentionGone     EventType = "contention.withdrawn" // Actor (the requester), Path, Reason (why), Data
	EventContentionResolved EventType = "contention.resolved"  // Actor (the operator's --by), Path, Reason (action, note), Data
	EventBlockerOpened      EventType = "blocker.opened"       // Data (blocker report)
	EventBlockerResolved    EventType = "blocker.resolved"     // Data (resolution)
	EventBlockerRetried     EventType = "blocker.retried"      // Actor (the operator's --by), Path, LeaseID (the holder's), Reason, Data: a retry that found the file still held
	EventUngatedWrite       EventType = "write.ungated"
	EventRuleChanged        EventType = "rule.changed"       // Actor (the writer), Path, Reason (the operation)
	EventNotice             EventType = "notice"             // reminders, evictions, reclaims for the owner
	EventNoticeUndelivered  EventType = "notice.undelivered" // the webhook could not take a notice
	EventLedgerDegraded     EventType = "ledger.degraded"    // Reason: why the journal cannot be copied into the ledger file
	EventLedgerRecovered    EventType = "ledger.recovered"   // the journal is copied again
	EventLedgerWentBack     EventType = "ledger.went_back"   // Actor (the coordinator that found it), LeaseID and Path (a lease lost), Reason: what the shared ledger lost
)

// Event is one entry of the append-only ledger. Seq is assigned by the store
// on append and grows by one per event; At is UTC.
type Event struct {
	Seq       uint64          `json:"seq"`
	Type      EventType       `json:"type"`
	At        time.Time       `json:"at"`
	Actor     string          `json:"actor,omitempty"`
	LeaseID   LeaseID         `json:"lease_id,omitempty"`
	Lease     *Lease          `json:"lease,omitempty"`
	ExpiresAt time.Time       `json:"expires_at,omitzero"`
	Reason    string          `json:"reason,omitempty"`
	Path      string          `json:"path,omitempty"`
	By        *Operator       `json:"by,omitempty"` // who did an operator's act
	Data      json.RawMessage `json:"data,omitempty"`
}

// UTC returns a copy of e with every time in UTC and without a monotonic
// reading: the form the ledger stores, so a replay reads back what was
// written whatever the writer's local zone.
func (e Event) UTC() Event {
	e.At = utc(e.At)
	e.ExpiresAt = utc(e.ExpiresAt)
	if e.Lease != nil {
		l := *e.Lease
		l.AcquiredAt = utc(l.AcquiredAt)
		l.LastHeartbeatAt = utc(l.LastHeartbeatAt)
		l.ExpiresAt = utc(l.ExpiresAt)
		l.TerminatedAt = utc(l.TerminatedAt)
		e.Lease = &l
	}
	return e
}

func utc(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC()
}

// EndsLease reports whether an event of type t ends its lease: released,
// completed, expired, evicted or reclaimed (the types with an end state).
func (t EventType) EndsLease() bool {
	_, ok := endState[t]
	return ok
}

// IsLease reports whether the event changes lease state.
func (e *Event) IsLease() bool { return strings.HasPrefix(string(e.Type), "lease.") }

// Touches reports whether the event concerns lease id or path p (for the
// audit history). A path matches the event's Path or any path of a granted
// lease's scope.
func (e *Event) Touches(id LeaseID, p string) bool { return ExactCase.Touches(e, id, p) }

// Touches is Event.Touches with names compared under f: on a volume that
// folds case the history of src/x.go holds the events of Src/X.go.
func (f Folding) Touches(e *Event, id LeaseID, p string) bool {
	if id != NoLease && (e.LeaseID == id || (e.Lease != nil && e.Lease.ID == id)) {
		return true
	}
	if p == "" {
		return false
	}
	if f.Equal(e.Path, p) {
		return true
	}
	if e.Lease != nil {
		for _, sp := range e.Lease.Scope.Paths {
			if f.Overlap(sp, p) {
				return true
			}
		}
	}
	return false
}
