package leasegate

import (
	"context"
	"time"

	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// Service is what a coordinator offers. The coordinator implements it in
// its own process, the api client over the workspace's socket; the
// packages that use only a part of it declare the smaller interface they
// need where they use it. A call that fails with a denial returns a
// *gate.DeniedError carrying its reason code; over the socket, a
// coordinator that cannot be reached is an error of its own (the api
// client's ErrUnavailable), never a grant.
type Service interface {
	// Register records an owner and the windows it names.
	Register(ctx context.Context, r Registration) error
	// Join is Register answering the owner the registrant acts as: with
	// r.JoinRoot, the live owner already registered for r's root process
	// when the kernel shows the registrant runs under that process, else
	// r's own name.
	Join(ctx context.Context, r Registration) (string, error)
	// Heartbeat tells that an owner's sidecar or hook session is alive,
	// and answers how long the owner's gate may trust its cache.
	Heartbeat(ctx context.Context, name string) (Beat, error)
	// Activity reports an owner's activity other than a mutation; it
	// cancels a pending stop-idle release.
	Activity(ctx context.Context, name string) error
	// Stop opens an owner's stop-idle window and returns when its leases
	// will be released if it stays idle.
	Stop(ctx context.Context, name, reason string) (time.Time, error)
	// End releases an ended owner's auto leases and returns how many.
	End(ctx context.Context, name, reason string) (int, error)
	// ReleaseCommitted releases the owner's leases on files that HEAD
	// holds and the working tree leaves clean, and returns them.
	ReleaseCommitted(ctx context.Context, name string) ([]gate.Lease, error)

	// Mutate gates one mutation: Granted, Contended (its one retry is
	// scheduled), Blocked or Denied.
	Mutate(ctx context.Context, req MutateRequest) (Result, error)
	// WaitContention waits until a contention's retry is decided, or
	// ctx ends, or a bound of the implementation passes (a long-poll),
	// and returns where it stands: Contended while it is undecided.
	WaitContention(ctx context.Context, id string) (Result, error)
	// Withdraw withdraws a waiting contention: its write will not be made.
	Withdraw(ctx context.Context, id, reason string) (Result, error)
	// WaitBlocker waits until an operator resolves a blocker, or ctx ends,
	// or a bound of the implementation passes, and returns where the held
	// mutation stands: Blocked while it is held.
	WaitBlocker(ctx context.Context, id string) (Result, error)

	// Lease carries out an explicit lease operation (acquire, renew,
	// release, validate, checkin, evict).
	Lease(ctx context.Context, req LeaseRequest) (LeaseResult, error)
	// Leases lists the active leases, or with a path those overlapping it.
	Leases(ctx context.Context, path string) ([]gate.Lease, error)
	// GetLease returns one lease, in any state.
	GetLease(ctx context.Context, id gate.LeaseID) (gate.Lease, error)

	// Blockers lists the open blocker reports, or all of them with all.
	Blockers(ctx context.Context, all bool) ([]blocker.Report, error)
	// Blocker returns one blocker report.
	Blocker(ctx context.Context, id string) (blocker.Report, error)
	// Resolve carries out an operator's instruction on a blocker, or on a
	// write waiting for its retry given the contention's id.
	Resolve(ctx context.Context, id string, a blocker.Action, by, note string) (ResolveResult, error)

	// Status returns a consistent snapshot of owners, leases,
	// contentions, blockers and recent ungated writes.
	Status(ctx context.Context) (Status, error)
	// Stats returns the figures only the coordinator's process has.
	Stats(ctx context.Context) (Stats, error)
	// Check says what stands in the way of writing paths (workspace
	// paths or globs): the leases on them, their holders' liveness, the
	// contentions and open blockers on them, and who the caller is.
	Check(ctx context.Context, paths []string) (CheckView, error)
	// Whoami says who the coordinator takes the caller to be.
	Whoami(ctx context.Context) (CallerView, error)
	// History returns the audit trail of a lease id or a path (or of
	// everything), oldest first, at most limit events (0: no limit).
	History(ctx context.Context, id gate.LeaseID, path string, limit int) ([]gate.Event, error)
	// Events passes fn the committed events after sequence number after,
	// in order; with follow it goes on with live events until ctx ends.
	// It returns fn's first error.
	Events(ctx context.Context, after uint64, follow bool, fn func(gate.Event) error) error
	// ReportUngated records a write that no sidecar gated.
	ReportUngated(ctx context.Context, w UngatedWrite) error
}
