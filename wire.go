package leasegate

import (
	"time"

	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// Outcome is where a gated mutation stands.
type Outcome string

const (
	// Granted: the mutation may proceed; the owner holds the leases.
	Granted Outcome = "granted"
	// Contended: another live owner holds a path; the one retry is
	// scheduled at RetryAt. Wait with WaitContention.
	Contended Outcome = "contended"
	// Blocked: the retry found the path still held; a blocker report is
	// open and the mutation is held for an operator. Wait with WaitBlocker.
	Blocked Outcome = "blocked"
	// Denied: refused for good (bad input, or an operator chose --deny):
	// fail the syscall with EBUSY and let the worker go on.
	Denied Outcome = "denied"
	// Aborted: an operator chose --abort, or the requester ended: end the
	// worker.
	Aborted Outcome = "aborted"
	// Withdrawn: the waiter went away before the write was decided (it was
	// interrupted or killed); nothing was granted.
	Withdrawn Outcome = "withdrawn"
)

// MutateRequest asks to mutate paths on behalf of a registered owner.
type MutateRequest struct {
	Owner string `json:"owner"`
	Op    string `json:"op"` // the mutation, for reports: write, create, rename, unlink, ...
	// Paths are workspace-relative patterns: a file as gate.Literal names
	// it (app/\[id]/page.tsx for app/[id]/page.tsx), a directory's subtree
	// as gate.Subtree does ("dir/**").
	Paths []string `json:"paths"`
	// Files are the identities of the paths that name an existing file, as
	// the requester found them: the grant covers each file under all its
	// names, and is refused while another owner's lease covers the file.
	Files []gate.File `json:"files,omitempty"`
	// Try asks for a grant only: when another owner holds a path the
	// answer is Denied at once, with no contention heartbeat and no retry.
	// Sidecars use it to take a new directory's whole subtree when they can:
	// a Try of op "mkdir" of one path "dir/**" is granted as a lease marked
	// gate.Lease.NewDir, which another owner's new name beneath narrows.
	Try bool `json:"try,omitempty"`
	// RetryAfter is the requester's retry window for this mutation, when
	// the command asking names one (a hook call's --retry-after); zero
	// means the window the owner registered, else the coordinator's.
	RetryAfter gate.Window `json:"retry_after,omitzero"`
	// HoldsGitLock is the git lock file (".git/index.lock", HEAD.lock, a
	// ref's lock) the writing process or one above it holds open, as the
	// requester found it: while the write waits, every other git in the
	// repository fails, so a contention and a blocker say so.
	HoldsGitLock string `json:"holds_git_lock,omitempty"`
}

// Result is the answer to a gated mutation at some stage of the protocol.
type Result struct {
	Outcome    Outcome         `json:"outcome"`
	Reason     gate.Reason     `json:"reason"`
	Message    string          `json:"message,omitempty"`
	Leases     []gate.Lease    `json:"leases,omitempty"`
	Holder     *gate.Lease     `json:"holder,omitempty"`
	Contention *ContentionView `json:"contention,omitempty"`
	Blocker    *blocker.Report `json:"blocker,omitempty"`
}

// ContentionView is a contention as clients see it.
type ContentionView struct {
	ID            string        `json:"id"`
	Requester     string        `json:"requester"`
	Paths         []string      `json:"paths"`
	Holder        gate.Lease    `json:"holder"`
	HolderAge     time.Duration `json:"holder_age_ns"`
	FirstDeniedAt time.Time     `json:"first_denied_at"`
	RetryAt       time.Time     `json:"retry_at"`
	RetryAfter    gate.Window   `json:"retry_after"` // the requester's window: RetryAt - FirstDeniedAt
	Outcome       Outcome       `json:"outcome"`
	BlockerID     string        `json:"blocker_id,omitempty"`
	HoldsGitLock  string        `json:"holds_git_lock,omitempty"` // the requester's, see MutateRequest
}

// LeaseRequest is an explicit lease operation from the CLI or API:
// acquire (check-out), renew, release, validate, checkin or evict.
type LeaseRequest struct {
	Op      gate.Op       `json:"op"`
	Owner   gate.Owner    `json:"owner"`
	Scope   gate.Scope    `json:"scope,omitzero"`
	TTL     time.Duration `json:"ttl,omitempty"`
	LeaseID gate.LeaseID  `json:"lease_id,omitempty"`
	Token   uint64        `json:"token,omitempty"`
	Reason  string        `json:"reason,omitempty"`
	// Admin is who an eviction is recorded under. It never travels in
	// the body: the api client sends it as a header, and the server keeps
	// it only when the caller proved to be an operator (its process on the
	// unix socket, the admin token on TCP).
	Admin string `json:"-"`
}

// LeaseResult is the answer to a LeaseRequest.
type LeaseResult struct {
	Decision gate.Decision `json:"decision"`
	Leases   []gate.Lease  `json:"leases,omitempty"` // granted or acted on, as they now stand
}

// ResolveResult says what an operator's instruction did.
type ResolveResult struct {
	Blocker    blocker.Report  `json:"blocker,omitzero"`
	Contention *ContentionView `json:"contention,omitempty"` // when the id named a waiting contention
	Outcome    Outcome         `json:"outcome"`              // for the held mutation: granted, blocked (retry still held), denied, aborted
	Message    string          `json:"message"`
}

// MaxCheckPaths bounds the paths of one check: a caller lists the files of
// a task, and a glob covers a tree.
const MaxCheckPaths = 256

// CheckView is what the coordinator knows of some paths, found through
// the lease table's path index rather than by building the whole status:
// the active leases overlapping them, their holders' liveness, the
// contentions and open blockers on them, and who the caller is (as
// whoami says), all of one moment.
type CheckView struct {
	Now         time.Time                `json:"now"`
	Caller      CallerView               `json:"caller"`
	Leases      []gate.Lease             `json:"leases"`
	Liveness    map[string]gate.Liveness `json:"liveness"` // of each holder of Leases, by owner name
	Contentions []ContentionView         `json:"contentions"`
	Blockers    []blocker.Report         `json:"blockers"`
	// Warning is the coordinator's ledger warning, as status's
	// LedgerWarning: a degraded ledger, or a shared one without its etcd
	// session, when what the coordinator knows of other machines' leases
	// may not be current. Empty while the ledger is healthy.
	Warning string `json:"warning,omitempty"`
}
