package gate

import (
	"time"
)

// Contract defaults. Each is exact: tests assert them, and flags may only
// shorten the windows for tests and demos.
const (
	// DefaultCheckoutTTL is how long an explicit check-out lease lives. There
	// is no auto-renewal and no grace period: at ExpiresAt the lease is over.
	DefaultCheckoutTTL = 72 * time.Hour
	// MinCheckoutTTL and MaxCheckoutTTL bound a requested TTL; outside them a
	// request is denied with LEASE_TTL_OUT_OF_BOUNDS.
	MinCheckoutTTL = time.Minute
	MaxCheckoutTTL = 30 * 24 * time.Hour
	// DefaultRemindBefore is how long before expiry the one reminder is sent.
	DefaultRemindBefore = 2 * time.Hour
	// MaxIDLen bounds every id and owner name a request may carry.
	MaxIDLen = 128
	// MaxPaths bounds the paths of one request (after pair expansion).
	MaxPaths = 4096
	// MaxPathLen bounds one workspace-relative path, like PATH_MAX.
	MaxPathLen = 4096
)

// LeaseID identifies a lease. Leases created by the coordinator carry a ULID.
type LeaseID string

// NoLease is the zero LeaseID.
const NoLease LeaseID = ""

// Kind says how a lease came to be and what ends it.
type Kind string

const (
	// KindAuto is taken transparently by a gated mutation. It has no TTL: it
	// lives as long as its owner is alive and ends on commit, worker exit or
	// stop-idle.
	KindAuto Kind = "auto"
	// KindCheckout is an explicit check-out (`leasegate acquire`). It has a
	// TTL (72 h by default), no auto-renewal and no grace period.
	KindCheckout Kind = "checkout"
)

// ScopeType is the shape of what a lease covers.
type ScopeType string

const (
	// ScopeFile covers the listed files exactly.
	ScopeFile ScopeType = "file"
	// ScopeSparse covers the listed paths and globs (`*`, `?`, `[...]`
	// within a segment, `**` across segments). A directory is written
	// `dir/**`.
	ScopeSparse ScopeType = "sparse"
	// ScopeFull covers the whole workspace and conflicts with everything.
	ScopeFull ScopeType = "full"
)

// Scope is what a lease covers. Paths are workspace-relative, slash
// separated and clean (see CleanPath). Files are the identities of the
// files some of the paths named when the lease was asked for (paths that
// did not exist, globs and directories have none): the lease covers those
// files under every name.
type Scope struct {
	Type  ScopeType `json:"type"`
	Paths []string  `json:"paths,omitempty"`
	Files []File    `json:"files,omitempty"`
}

// State is a lease's lifecycle state. Active is the only non-terminal
// state, and terminal states are final.
type State string

const (
	StateActive    State = "active"
	StateReleased  State = "released"
	StateExpired   State = "expired"
	StateEvicted   State = "evicted"
	StateCompleted State = "completed"
	StateReclaimed State = "reclaimed"
)

// Terminal reports whether s is final.
func (s State) Terminal() bool { return s != StateActive }

// Owner identifies who holds a lease: a worker wrapped by `leasegate run`, an
// agent session seen through hooks, or a person using `leasegate acquire`.
// Name is the identity; Host, PID and StartTime are its liveness handle (a
// reused pid has another start time, so it is not mistaken for the owner).
type Owner struct {
	Name      string `json:"name"`
	Host      string `json:"host,omitempty"`
	PID       int    `json:"pid,omitempty"`
	StartTime int64  `json:"start_time,omitempty"` // process create time, ms since the epoch
}

// Where names the owner and, when known, its machine ("alice on host
// box1"): on a lease table shared by several machines the holder's host
// tells a loser whose coordinator judges the holder.
func (o Owner) Where() string {
	if o.Host == "" {
		return o.Name
	}
	return o.Name + " on host " + o.Host
}

// Lease is one grant of exclusive mutation rights over a scope.
type Lease struct {
	ID              LeaseID   `json:"id"`
	Owner           Owner     `json:"owner"`
	Kind            Kind      `json:"kind"`
	Scope           Scope     `json:"scope"`
	State           State     `json:"state"`
	FencingToken    uint64    `json:"fencing_token"`
	AcquiredAt      time.Time `json:"acquired_at"`
	LastHeartbeatAt time.Time `json:"last_heartbeat_at"`
	ExpiresAt       time.Time `json:"expires_at,omitzero"` // zero for auto leases
	RenewalCount    uint32    `json:"renewal_count,omitempty"`
	ReminderSent    bool      `json:"reminder_sent,omitempty"`
	ReleaseReason   string    `json:"release_reason,omitempty"`
	EndedBy         string    `json:"ended_by,omitempty"`
	TerminatedAt    time.Time `json:"terminated_at,omitzero"`
	// NewDir marks an auto lease taken on the subtree of a directory its
	// holder was creating ("dir/**", a sidecar's Try of a mkdir). Another
	// owner's write of a path beneath it that does not exist narrows it
	// (EventNarrowed) to what exists there, instead of waiting for it.
	NewDir bool `json:"new_dir,omitempty"`
}

// Expired reports whether an active lease's TTL has run out at now. Auto
// leases never expire by time. With now and ExpiresAt both taken from one
// process's clock the comparison uses the monotonic reading, so a wall-clock
// jump neither expires nor extends a lease.
func (l *Lease) Expired(now time.Time) bool {
	if l.ExpiresAt.IsZero() {
		return false
	}
	return !now.Before(l.ExpiresAt)
}

// Live reports whether the lease still excludes others at now.
func (l *Lease) Live(now time.Time) bool {
	return l.State == StateActive && !l.Expired(now)
}

// Remaining is the time left before expiry, zero when none or no TTL.
func (l *Lease) Remaining(now time.Time) time.Duration {
	if l.ExpiresAt.IsZero() || !now.Before(l.ExpiresAt) {
		return 0
	}
	return l.ExpiresAt.Sub(now)
}

// HeldBy reports whether name owns the lease.
func (l *Lease) HeldBy(name string) bool { return l.Owner.Name == name }
