package mcp

import (
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// Holding is a lease as a model needs it: who holds what, how long it has
// and will, and how alive the holder is. Times are RFC 3339 UTC;
// durations are Go duration strings ("4m10s") with a seconds twin. "Now"
// is the coordinator's.
type Holding struct {
	LeaseID        string   `json:"lease_id"`
	Holder         string   `json:"holder"`
	Mine           bool     `json:"mine"`
	Kind           string   `json:"kind" jsonschema:"auto (taken by a gated write, ends with its owner) or checkout (taken on purpose, with a TTL)"`
	Scope          string   `json:"scope" jsonschema:"file, sparse or full"`
	Paths          []string `json:"paths,omitempty"`
	NewDir         bool     `json:"new_dir,omitempty" jsonschema:"taken on a directory its holder created: another owner's new name there narrows it to what exists there"`
	AcquiredAt     string   `json:"acquired_at"`
	HeldFor        string   `json:"held_for"`
	HeldForSeconds int64    `json:"held_for_seconds"`
	ExpiresAt      string   `json:"expires_at,omitempty"`
	ExpiresIn      string   `json:"expires_in,omitempty"`
	Token          uint64   `json:"fencing_token"`
	Liveness       string   `json:"liveness,omitempty" jsonschema:"the holder's liveness: alive, stopped, dead or unknown"`
	Evidence       []string `json:"evidence,omitempty" jsonschema:"where the liveness verdict comes from (pidfd, /proc, heartbeat...)"`
}

// Contention is a write waiting for its one retry.
type Contention struct {
	ID           string   `json:"id"`
	Requester    string   `json:"requester"`
	Paths        []string `json:"paths"`
	HolderLease  string   `json:"holder_lease"`
	Holder       string   `json:"holder"`
	RetryAt      string   `json:"retry_at"`
	RetryIn      string   `json:"retry_in"`
	RetryInSecs  int64    `json:"retry_in_seconds"`
	BlockerID    string   `json:"blocker_id,omitempty"`
	FirstDenied  string   `json:"first_denied_at"`
	RetryAfter   string   `json:"retry_after" jsonschema:"the requester's retry window"`
	RetryAfterBy string   `json:"retry_after_from,omitempty"`
}

// Blocker is an open blocker report in brief.
type Blocker struct {
	ID          string   `json:"id"`
	Status      string   `json:"status"`
	Path        string   `json:"path"`
	Paths       []string `json:"paths"`
	Requester   string   `json:"requester"`
	Holder      string   `json:"holder"`
	HolderLease string   `json:"holder_lease"`
	Reason      string   `json:"reason"`
	RetriedAt   string   `json:"retried_at,omitempty"`
	// HolderHolds and HolderNow are the holder's lease as the report was
	// read (the report's holder_now): whether it still keeps the file from
	// the requester, and in a few words its state ("holds the file (lease
	// active)", "lease released at T by bob"). A blocker is read long after
	// its retry, and its holder may have let go since. Absent from a
	// report that never recorded it.
	HolderHolds *bool  `json:"holder_holds,omitempty"`
	HolderNow   string `json:"holder_now,omitempty"`
}

// livenessOf is each owner's liveness, from a status snapshot.
type livenessOf map[string]gate.Liveness

func ownersLiveness(st leasegate.Status) livenessOf {
	m := livenessOf{}
	for _, o := range st.Owners {
		m[o.Name] = o.Liveness
	}
	return m
}

func holding(l gate.Lease, me string, now time.Time, live livenessOf) Holding {
	h := Holding{LeaseID: string(l.ID), Holder: l.Owner.Name, Mine: me != "" && l.Owner.Name == me, Kind: string(l.Kind),
		Scope: string(l.Scope.Type), Paths: l.Scope.Paths, NewDir: l.NewDir, AcquiredAt: stamp(l.AcquiredAt), Token: l.FencingToken, Liveness: "unknown"}
	held := now.Sub(l.AcquiredAt).Round(time.Second)
	h.HeldFor, h.HeldForSeconds = held.String(), int64(held.Seconds())
	if !l.ExpiresAt.IsZero() {
		h.ExpiresAt, h.ExpiresIn = stamp(l.ExpiresAt), l.ExpiresAt.Sub(now).Round(time.Second).String()
	}
	if v, ok := live[l.Owner.Name]; ok && v.Status != "" {
		h.Liveness, h.Evidence = string(v.Status), v.Evidence
	}
	return h
}

func contention(c leasegate.ContentionView, now time.Time) Contention {
	in := max(c.RetryAt.Sub(now), 0).Round(time.Second)
	return Contention{ID: c.ID, Requester: c.Requester, Paths: c.Paths, HolderLease: string(c.Holder.ID), Holder: c.Holder.Owner.Name,
		RetryAt: stamp(c.RetryAt), RetryIn: in.String(), RetryInSecs: int64(in.Seconds()), BlockerID: c.BlockerID,
		FirstDenied: stamp(c.FirstDeniedAt), RetryAfter: c.RetryAfter.After.String(), RetryAfterBy: string(c.RetryAfter.From)}
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func overlapsAny(paths []string, p string, f gate.Folding) bool {
	for _, q := range paths {
		if f.Overlap(q, p) {
			return true
		}
	}
	return false
}
