package blocker

import (
	"fmt"
	"slices"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// Status is where a report stands. Only an open report can be resolved;
// the three others are final for the report.
type Status string

const (
	// StatusOpen: the requester is halted, waiting for an operator.
	StatusOpen Status = "open"
	// StatusRetried: an operator asked for a new decision and it was
	// granted. A retry that finds the path still held leaves the report
	// open (or the coordinator opens a fresh report); it is not recorded
	// as a resolution.
	StatusRetried Status = "retried"
	// StatusDenied: the held write failed with EBUSY and the worker went on.
	StatusDenied Status = "denied"
	// StatusAborted: the worker was ended.
	StatusAborted Status = "aborted"
	// StatusWithdrawn: the requester stopped waiting (its held write was
	// interrupted): there is nothing left to resolve.
	StatusWithdrawn Status = "withdrawn"
)

// Action is what an operator asks with `leasegate resolve ID
// --retry|--deny|--abort`.
type Action string

const (
	// ActionRetry decides the held mutation again, after the holder
	// committed, released or was evicted.
	ActionRetry Action = "retry"
	// ActionDeny fails the held write with EBUSY; the worker continues.
	ActionDeny Action = "deny"
	// ActionAbort ends the worker.
	ActionAbort Action = "abort"
	// ActionWithdraw is the requester's, never an operator's: its held
	// write was interrupted, so the blocker closes.
	ActionWithdraw Action = "withdraw"
)

// resolvedStatus maps each valid action to the status it resolves to.
var resolvedStatus = map[Action]Status{
	ActionRetry: StatusRetried,
	ActionDeny:  StatusDenied,
	ActionAbort: StatusAborted,
	// The requester's own: the coordinator's Resolve refuses it.
	ActionWithdraw: StatusWithdrawn,
}

// Valid reports whether a is one of the three actions.
func (a Action) Valid() bool { _, ok := resolvedStatus[a]; return ok }

// Report is one blocker: a mutation still denied after its one retry, the
// evidence about who holds the path, and how to get out. Times are UTC.
// In JSON, durations are integer nanoseconds with the unit in the name
// (retry_interval_ns, held_for_ns, idle_after_ns), as everywhere in
// leasegate's JSON; times are RFC 3339.
type Report struct {
	ID            string            `json:"id"` // a ULID, set by the coordinator
	Path          string            `json:"path"`
	Paths         []string          `json:"paths"` // every path of the blocked mutation
	Op            string            `json:"op"`    // write, create, rename, unlink, ...
	Requester     gate.Owner        `json:"requester"`
	Holder        HolderInfo        `json:"holder"`
	Reason        gate.Reason       `json:"reason"` // of the first denial
	FirstDeniedAt time.Time         `json:"first_denied_at"`
	RetryInterval time.Duration     `json:"retry_interval_ns"`    // the requester's retry window; 180 s by contract
	RetryFrom     gate.WindowSource `json:"retry_from,omitempty"` // who named that window
	RetryAt       time.Time         `json:"retry_at"`
	RetriedAt     time.Time         `json:"retried_at"`
	RetryResult   gate.Reason       `json:"retry_result"`
	Status        Status            `json:"status"`
	Resolution    *Resolution       `json:"resolution,omitempty"`
	// FreeSince is set on an open report whose paths are free for the
	// requester now (the holder committed, released, was evicted or
	// reclaimed): since when. `resolve ID --retry` then grants the held
	// write; the requester stays halted until an operator says so.
	FreeSince time.Time `json:"free_since,omitzero"`
	// HolderNow is the holder's lease when the report was last read
	// (Observe), or at the retry; nil in reports written before it was
	// recorded.
	HolderNow *HolderNow `json:"holder_now,omitempty"`
	// HoldsGitLock is the git lock file (".git/index.lock", HEAD.lock, a
	// ref's lock) the requester's writing process held open when it asked:
	// while the write is held, every other git in the repository fails.
	HoldsGitLock string `json:"holds_git_lock,omitempty"`
	// HowToResolve are the steps that apply as of HolderNow: shell
	// commands, each with a comment; none once the report is resolved.
	HowToResolve []string `json:"how_to_resolve"`
}

// HolderInfo is the lease that blocks the mutation and what is known of
// its owner.
type HolderInfo struct {
	Owner        gate.Owner    `json:"owner"`
	LeaseID      gate.LeaseID  `json:"lease_id"`
	FencingToken uint64        `json:"fencing_token"`
	Kind         gate.Kind     `json:"kind"`
	AcquiredAt   time.Time     `json:"acquired_at"`
	HeldFor      time.Duration `json:"held_for_ns"` // at the retry
	Liveness     gate.Liveness `json:"liveness"`
	// IdleAfter is the holder's stop-idle window, IdleFrom who named it.
	IdleAfter time.Duration     `json:"idle_after_ns,omitempty"`
	IdleFrom  gate.WindowSource `json:"idle_from,omitempty"`
	// SameFileAs is the holder's path that names the blocked file, when the
	// blocked path is another name of it (a hard link).
	SameFileAs string `json:"same_file_as,omitempty"`
}

// Resolution is an operator's answer to a report.
type Resolution struct {
	Action Action    `json:"action"`
	By     string    `json:"by"`
	At     time.Time `json:"at"`
	Note   string    `json:"note,omitempty"`
}

// Input is what the coordinator knows when a retry finds the path still
// held.
type Input struct {
	ID             string
	Path           string
	Paths          []string // empty means just Path
	Op             string
	Requester      gate.Owner
	Holder         gate.Lease
	HolderLiveness gate.Liveness
	Reason         gate.Reason // of the first denial; empty means LEASE_HELD_BY_OTHER
	FirstDeniedAt  time.Time
	RetryAt        time.Time
	RetriedAt      time.Time
	RetryInterval  time.Duration     // zero means RetryAt - FirstDeniedAt
	RetryFrom      gate.WindowSource // who named the requester's retry window
	HolderIdle     gate.Window       // the holder's stop-idle window
	SameFileAs     string            // the holder's path naming the blocked file under another name, if so
	HoldsGitLock   string            // the git lock file the requester's process holds, if any
	RetryResult    gate.Reason
}

// New builds an open report from a denial that its retry did not lift.
// HeldFor is RetriedAt - Holder.AcquiredAt (FirstDeniedAt when the retry
// time is unknown, zero when neither is). Times are normalized to UTC and slices copied.
func New(in Input) Report {
	r := Report{
		ID: in.ID, Path: in.Path, Paths: clonePaths(in.Paths, in.Path), Op: in.Op,
		Requester: in.Requester, Holder: holderInfo(in), Reason: in.Reason,
		FirstDeniedAt: utc(in.FirstDeniedAt), RetryInterval: in.RetryInterval, RetryFrom: in.RetryFrom,
		RetryAt: utc(in.RetryAt), RetriedAt: utc(in.RetriedAt), RetryResult: in.RetryResult,
		Status: StatusOpen, HoldsGitLock: in.HoldsGitLock,
	}
	if r.Reason == "" {
		r.Reason = gate.ReasonHeldByOther
	}
	if r.RetryInterval == 0 && !r.RetryAt.IsZero() && !r.FirstDeniedAt.IsZero() {
		r.RetryInterval = r.RetryAt.Sub(r.FirstDeniedAt)
	}
	asOf := r.RetriedAt
	if asOf.IsZero() {
		asOf = r.FirstDeniedAt
	}
	r.HolderNow = &HolderNow{State: gate.StateActive, Holds: true, Source: SourceRetry, AsOf: asOf}
	r.HowToResolve = r.steps()
	return r
}

func holderInfo(in Input) HolderInfo {
	l := in.Holder
	at := in.RetriedAt
	if at.IsZero() {
		at = in.FirstDeniedAt
	}
	lv := in.HolderLiveness
	lv.CheckedAt = utc(lv.CheckedAt)
	lv.Evidence = slices.Clone(lv.Evidence)
	idle := in.HolderIdle
	if l.Kind == gate.KindCheckout {
		// A check-out belongs to its name and its TTL, never to a process:
		// the holder's liveness ("judged by heartbeat", "no heartbeat
		// recorded") and stop-idle window would suggest an end that never
		// comes. Say how it does end.
		lv.Evidence = append([]string{checkoutEnds(l)}, lv.Evidence...)
		idle = gate.Window{}
	}
	h := HolderInfo{
		Owner: l.Owner, LeaseID: l.ID, FencingToken: l.FencingToken, Kind: l.Kind,
		AcquiredAt: utc(l.AcquiredAt), Liveness: lv, IdleAfter: idle.After, IdleFrom: idle.From,
		SameFileAs: in.SameFileAs,
	}
	if !at.IsZero() && !l.AcquiredAt.IsZero() {
		h.HeldFor = at.Sub(l.AcquiredAt)
	}
	return h
}

// GitLockNote says what a requester holding git's lock file means while
// its write is held, and the fastest ways out; "" when it holds none, or
// once the report is resolved and the write with it.
func (r Report) GitLockNote() string {
	if r.Status != StatusOpen {
		return ""
	}
	return GitLockNote(r.HoldsGitLock, r.ID, r.Holder.Owner.Name)
}

// GitLockNote says that the held write of a process holding git's lock
// file lock keeps every other git in the repository failing until it is
// decided, and how to decide it at once: id is the blocker or contention
// `resolve` takes, holder the owner whose commit or release frees the
// file. "" when lock is.
func GitLockNote(lock, id, holder string) string {
	if lock == "" {
		return ""
	}
	return fmt.Sprintf("the held write's process holds git's %s: every other git in the repository fails (\"Unable to create '%s': File exists\") until the write is decided; "+
		"fastest: `leasegate resolve %s --deny` (git goes on without the file) or `--abort` (ends the worker and removes the lock), or %s commits or releases the file",
		lock, lock, id, holder)
}

// checkoutEnds says how a check-out lease ends: not by its owner's
// liveness or idleness.
func checkoutEnds(l gate.Lease) string {
	expiry := "its expiry"
	if !l.ExpiresAt.IsZero() {
		expiry += " at " + utc(l.ExpiresAt).Format(time.RFC3339)
	}
	return "check-out lease: no process, heartbeat or stop-idle ends it; it ends by release, check-in, eviction or " + expiry
}

func clonePaths(paths []string, path string) []string {
	if len(paths) == 0 {
		return []string{path}
	}
	return slices.Clone(paths)
}

// utc drops the monotonic reading and the zone, as persisting does.
func utc(t time.Time) time.Time { return t.Round(0).UTC() }

// clone returns a deep copy of r.
func (r Report) clone() Report {
	r.Paths = slices.Clone(r.Paths)
	r.HowToResolve = slices.Clone(r.HowToResolve)
	if r.HolderNow != nil {
		n := *r.HolderNow
		r.HolderNow = &n
	}
	r.Holder.Liveness.Evidence = slices.Clone(r.Holder.Liveness.Evidence)
	if r.Resolution != nil {
		res := *r.Resolution
		r.Resolution = &res
	}
	return r
}

// FreeNote says that an open report's file is free and how to let the
// held write proceed; "" when it is not known to be free.
func (r Report) FreeNote() string {
	if r.Status != StatusOpen || r.FreeSince.IsZero() {
		return ""
	}
	return fmt.Sprintf("free since %s; `leasegate resolve %s --retry` will grant it", r.FreeSince.UTC().Format(time.RFC3339), r.ID)
}
