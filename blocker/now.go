package blocker

import (
	"fmt"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// HolderNow is the holder's lease as it stands when a report is read.
// The rest of a report is the record of its retry and never changes;
// HolderNow and the steps of HowToResolve follow the lease afterwards, so
// a report read after its holder was reclaimed or released neither shows
// the holder as the one in the way nor offers to evict a lease already
// ended (the evict would fail with LEASE_ALREADY_TERMINAL).
type HolderNow struct {
	// State is the lease's state: active while it holds the file, else
	// how it ended (released, completed, expired, evicted, reclaimed), or
	// StateForgotten.
	State gate.State `json:"state"`
	// Holds reports whether the lease still keeps others out.
	Holds bool `json:"holds"`
	// EndedAt, EndedBy and Evidence are the lease's terminated_at,
	// ended_by and release_reason: when, by whom and why it ended (for a
	// reclaim, the liveness evidence that its owner is dead).
	EndedAt  time.Time `json:"ended_at,omitzero"`
	EndedBy  string    `json:"ended_by,omitempty"`
	Evidence string    `json:"evidence,omitempty"`
	// Source says where the state was read: SourceRetry or SourceTable.
	Source string `json:"source"`
	// AsOf is when it was read.
	AsOf time.Time `json:"as_of"`
}

// StateForgotten is the state of a holder's lease the lease table no
// longer has: it ended long enough ago to be pruned, so how is not known.
const StateForgotten gate.State = "forgotten"

// Where HolderNow was read.
const (
	// SourceRetry: the retry that opened the report found the lease
	// holding the file.
	SourceRetry = "the retry"
	// SourceTable: the coordinator's lease table, the fold of the ledger.
	SourceTable = "the lease table"
)

// Observe returns r with the holder's lease as l shows it at now: l is
// the lease of r.Holder.LeaseID as the lease table has it, or any other
// lease (the zero Lease) when the table no longer has it. The steps of
// HowToResolve become the ones that apply now; the rest of r, the record
// of its retry, is unchanged.
func (r Report) Observe(l gate.Lease, now time.Time) Report {
	n := HolderNow{State: StateForgotten, Source: SourceTable, AsOf: utc(now)}
	if l.ID == r.Holder.LeaseID {
		n.State, n.Holds = l.State, l.Live(now)
		if l.State.Terminal() {
			n.EndedAt, n.EndedBy, n.Evidence = utc(l.TerminatedAt), l.EndedBy, l.ReleaseReason
		} else if !n.Holds {
			// A check-out past its expiry that no sweep has ended yet.
			n.State, n.EndedAt = gate.StateExpired, utc(l.ExpiresAt)
		}
	}
	r.HolderNow = &n
	r.HowToResolve = r.steps()
	return r
}

// Phrase says in a few words whether the holder still holds the file:
// "holds the file (lease active)" or "lease reclaimed at T by liveness". It is "" for a
// report that never recorded it.
func (n *HolderNow) Phrase() string {
	switch {
	case n == nil:
		return ""
	case n.Holds:
		return "holds the file (lease active)"
	case n.State == StateForgotten:
		return "lease ended (no longer in the lease table)"
	}
	s := "lease " + string(n.State)
	if !n.EndedAt.IsZero() {
		s += " at " + stamp(n.EndedAt)
	}
	if n.EndedBy != "" {
		s += " by " + n.EndedBy
	}
	return s
}

// Detail is Phrase with the evidence of the end and where and when the
// state was read.
func (n *HolderNow) Detail() string {
	if n == nil {
		return ""
	}
	s := n.Phrase()
	if n.Evidence != "" {
		s += ": " + n.Evidence
	}
	return fmt.Sprintf("%s (from %s, as of %s)", s, n.Source, stamp(n.AsOf))
}
