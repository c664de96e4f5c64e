package leasegate

import (
	"fmt"
	"strings"
	"time"

	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// Status is everything `leasegate status` shows.
type Status struct {
	Now         time.Time        `json:"now"`
	StartedAt   time.Time        `json:"started_at"`
	LastSeq     uint64           `json:"last_seq"` // of the last event committed to the ledger
	Owners      []OwnerView      `json:"owners"`
	Leases      []gate.Lease     `json:"leases"`
	Contentions []ContentionView `json:"contentions"`
	Blockers    []blocker.Report `json:"blockers"`
	Ungated     []UngatedWrite   `json:"ungated"`
	// RetryAfter and IdleAfter are the coordinator's windows, which apply
	// to owners that name none; Defaults says where they came from.
	RetryAfter time.Duration `json:"retry_after_ns"`
	IdleAfter  time.Duration `json:"idle_after_ns"`
	Defaults   gate.Windows  `json:"default_windows"`
	// PidNS is the coordinator's pid namespace: a private one sees only
	// the workers inside it, which status says.
	PidNS PidNS `json:"pid_namespace"`
	// LedgerWarning says why the ledger is degraded (a full disk): its
	// journal cannot be copied into the ledger file, and writes are
	// refused before the journal runs out. Empty while it is healthy.
	LedgerWarning string `json:"ledger_warning,omitempty"`
	// FilesWarning says that an open of the coordinator's failed for want
	// of a descriptor, naming its open-files limit (RLIMIT_NOFILE): owners
	// may then be judged unknown and writes held until it is raised.
	// Empty while none has.
	FilesWarning string `json:"files_warning,omitempty"`
	// WentBack says that the shared ledger went back (etcd wiped, or
	// restored from an older snapshot): the leases it lost are gone. Kept
	// for coordinator.WentBackShown (72 h) from when it was found, by a
	// coordinator started since too (from the ledger.went_back events);
	// nil when it has not gone back within that time.
	WentBack *WentBack `json:"ledger_went_back,omitempty"`
}

// WentBack is a shared ledger found ending before what had been read from
// it, which the coordinator then serves as it is.
type WentBack struct {
	At time.Time `json:"at"`
	// Seen is the last seq read from the ledger before; Ends the seq it
	// ends at now.
	Seen uint64 `json:"seen_seq"`
	Ends uint64 `json:"ends_seq"`
	// Cause is the ledger's own account of it (etcd's revisions).
	Cause string `json:"cause"`
	// Lost are the leases the ledger held before and holds no more, at
	// most MaxLostShown of them; LostCount is how many there were.
	Lost      []LostLease `json:"lost_leases"`
	LostCount int         `json:"lost_count"`
}

// MaxLostShown is how many lost leases a WentBack lists: enough to name
// every lease of a few workers, few enough that a wiped ledger of 100,000
// leases does not make each status as large as its table.
const MaxLostShown = 100

// LostLease is a lease a shared ledger lost when it went back.
type LostLease struct {
	ID    gate.LeaseID `json:"id"`
	Owner string       `json:"owner"`
	Kind  gate.Kind    `json:"kind"`
	Paths []string     `json:"paths"` // ["**"] for a full check-out
}

// Summary says what happened in one line, for status, doctor and the
// ledger's history.
func (w WentBack) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the shared ledger went back at %s: etcd was wiped or restored from an older snapshot (it ends at seq %d, seq %d had been read); ",
		w.At.UTC().Format(time.RFC3339), w.Ends, w.Seen)
	if w.LostCount == 0 {
		b.WriteString("no lease was lost")
		return b.String()
	}
	if w.LostCount == 1 {
		b.WriteString("1 lease it held is gone:")
	} else {
		fmt.Fprintf(&b, "%d leases it held are gone:", w.LostCount)
	}
	for _, l := range w.Lost {
		fmt.Fprintf(&b, " %s's %s (%s);", l.Owner, gate.ShownFewPaths(l.Paths, " "), l.ID)
	}
	if more := w.LostCount - len(w.Lost); more > 0 {
		fmt.Fprintf(&b, " and %d more;", more)
	}
	b.WriteString(" their owners' next writes ask for them again, and may find them taken")
	return b.String()
}

// OwnerView is an owner as status shows it.
type OwnerView struct {
	gate.Owner
	RegisteredAt  time.Time `json:"registered_at"`
	LastHeartbeat time.Time `json:"last_heartbeat,omitzero"`
	LastActivity  time.Time `json:"last_activity,omitzero"`
	StoppedAt     time.Time `json:"stopped_at,omitzero"`
	// StoppedBy says what opened the stop-idle window: "reported" (the
	// owner said so) or "liveness" (its process was seen stopped).
	StoppedBy string `json:"stopped_by,omitempty"`
	// SeenPID is the owner's process as the coordinator's pid namespace
	// sees it (identified from SO_PEERCRED); 0 when not identified. PID
	// is what the owner reported.
	SeenPID  int           `json:"seen_pid,omitempty"`
	Windows  gate.Windows  `json:"windows"` // in effect, each with where it came from
	Liveness gate.Liveness `json:"liveness"`
	Leases   int           `json:"leases"`
	// HaltedBy is the open blocker the owner's held write waits on: the
	// owner is halted until an operator resolves it.
	HaltedBy string `json:"halted_by,omitempty"`
}

// CallerView is who the coordinator takes a caller to be: the answer of
// GET /v1/whoami, by which a process (a git hook, say) learns the owner it
// acts as by the same rule every owner check uses.
type CallerView struct {
	Peer         *gate.Peer `json:"peer,omitempty"`         // nil for a caller without one (TCP)
	Owners       []string   `json:"owners,omitempty"`       // the owners it acts as, nearest first
	RootPID      int        `json:"root_pid,omitempty"`     // the nearest owner's root process
	Operator     bool       `json:"operator,omitempty"`     // outside every owner's tree, as the coordinator's user
	Unidentified string     `json:"unidentified,omitempty"` // why it is no one, when it is
}

// UngatedWrite is a change seen on disk that no sidecar gated, reported
// with the lease it collided with, if any.
type UngatedWrite struct {
	Path     string    `json:"path"`
	At       time.Time `json:"at"`
	Op       string    `json:"op"`
	Reporter string    `json:"reporter,omitempty"` // who noticed: watcher, hook session
	// Rule marks a write of a file that changes the gating rule or what
	// git runs (workspace.RuleFile), reported by the writer's sidecar:
	// it is recorded as a rule.changed event, not as an ungated write.
	Rule  bool        `json:"rule,omitempty"`
	Lease *gate.Lease `json:"collided_with,omitempty"`
	// NotRecorded marks a write the ledger refused to record (a degraded
	// ledger on a full disk): status shows it from the coordinator's
	// memory, and it is gone from there when the coordinator stops.
	NotRecorded bool `json:"not_recorded,omitempty"`
}

// OpViewUnwatched is the UngatedWrite.Op of a FUSE worker's view whose
// watch of the directory Path the kernel refused at the user's limit
// (fs.inotify.max_user_watches; for the root, max_user_instances): nothing
// goes unseen, the view asks for the names there at each use. Reporter is
// the worker.
const OpViewUnwatched = "view-unwatched"

// PidNS is the pid namespace the coordinator runs in, as status shows it.
type PidNS struct {
	// ID names it as /proc/self/ns/pid does ("pid:[4026531836]").
	ID string `json:"id"`
	// Host is true for the host's (initial) pid namespace.
	Host bool `json:"host"`
	// Note says what a private one means, and the fix.
	Note string `json:"note,omitempty"`
}

// Stats are the figures only the coordinator's process has, for
// monitoring (GET /v1/stats, `leasegate ui`'s /metrics).
type Stats struct {
	// CommitLatency is how long each decision's events took from being
	// queued for the ledger to being durable (seconds): what a gated
	// write waits for the ledger.
	CommitLatency Histogram `json:"commit_latency_seconds"`
	// CommitBatch is how many events each ledger commit carried: the
	// group commit's batch size (events per fsync), as the ledger's own
	// committer counts it (store.Batcher); empty for a ledger that does
	// not count it.
	CommitBatch Histogram `json:"commit_batch_events"`
	// CommittedEvents counts the events made durable.
	CommittedEvents uint64 `json:"committed_events"`
	// JournalHeadroom is how many bytes the ledger's journal can still
	// take before writes are refused; -1 when the ledger does not say.
	JournalHeadroom int64 `json:"journal_headroom_bytes"`
	// Goroutines is the coordinator's runtime.NumGoroutine.
	Goroutines int `json:"goroutines"`
}

// Histogram is a cumulative histogram: Counts[i] observations were at
// most Bounds[i]; Count and Sum cover all of them.
type Histogram struct {
	Bounds []float64 `json:"bounds"`
	Counts []uint64  `json:"counts"`
	Count  uint64    `json:"count"`
	Sum    float64   `json:"sum"`
}
