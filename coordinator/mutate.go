package coordinator

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

// contention is one denied mutation waiting for its single retry.
type contention struct {
	decidedAt time.Time // zero while waiting; then pruned by the sweep after keepDecided
	view      leasegate.ContentionView
	req       leasegate.MutateRequest
	result    leasegate.Result
	done      chan struct{}         // closed when the retry has been decided
	waitsOn   map[gate.LeaseID]bool // the leases in the way: one ending wakes it
	waiters   int                   // requests waiting on it now (WaitContention)
	races     int                   // retries lost to another coordinator (shared ledger)
}

// hold is a blocked mutation held for an operator's instruction.
type hold struct {
	resolvedAt time.Time // zero while held
	freeSince  time.Time // when the file it waits for was found free; zero while held
	con        *contention
	result     leasegate.Result
	done       chan struct{} // closed once resolved
}

// Heartbeat payload of a contention.heartbeat event.
type heartbeatData struct {
	Contention string        `json:"contention_id"`
	File       string        `json:"file"`
	Requester  string        `json:"requester"`
	Holder     string        `json:"holder"`
	LeaseID    gate.LeaseID  `json:"lease_id"`
	HolderAge  time.Duration `json:"holder_age_ns"`
	RetryAt    time.Time     `json:"retry_at"`
	RetryAfter gate.Window   `json:"retry_after"`
	// HoldsGitLock is the git lock file the requester's process holds:
	// every other git in the repository fails while the write waits.
	HoldsGitLock string `json:"holds_git_lock,omitempty"`
}

// mutate gates one mutation: grant (acquiring free paths transparently),
// or start the contention protocol and answer Contended.
func (c *Coordinator) mutate(ctx context.Context, req leasegate.MutateRequest) (leasegate.Result, error) {
	if err := gate.ValidRetryAfter(req.RetryAfter.After, false); err != nil {
		return leasegate.Result{}, &gate.DeniedError{Reason: gate.ReasonInputInvalid, Message: err.Error()}
	}
	if err := validGitLock(req.HoldsGitLock); err != nil {
		return leasegate.Result{}, &gate.DeniedError{Reason: gate.ReasonInputInvalid, Message: err.Error()}
	}
	paths, err := c.cleanPaths(req.Paths)
	if err != nil {
		return leasegate.Result{}, err
	}
	req.Paths = paths
	if req.Files, err = cleanFiles(req.Files, paths); err != nil {
		return leasegate.Result{}, err
	}
	if err := c.callerOf(ctx).actAs(req.Owner); err != nil {
		return leasegate.Result{}, err
	}
	c.mu.Lock()
	o := c.owners[req.Owner]
	if o == nil || o.gone {
		c.mu.Unlock()
		return leasegate.Result{}, &gate.DeniedError{Reason: gate.ReasonNotFound, Message: "no registered owner " + req.Owner}
	}
	now := c.clock.Now()
	c.activity(req.Owner, now)
	d, done, err := c.decideAndCommit(o.Owner, req, now)
	if err != nil || d.Granted || d.Reason != gate.ReasonHeldByOther || req.Try {
		c.mu.Unlock()
		return c.settle(ctx, d, done, err)
	}
	con, done := c.contend(req, d, now)
	waiting := c.contentions[con.Contention.ID]
	c.mu.Unlock()
	c.watchAsker(ctx, waiting)
	if err := durable(ctx, done); err != nil {
		return leasegate.Result{}, err
	}
	return con, nil
}

// cleanPaths validates the request's paths and adds their pairs.
func (c *Coordinator) cleanPaths(in []string) ([]string, error) {
	if len(in) == 0 {
		return nil, &gate.DeniedError{Reason: gate.ReasonInputInvalid, Message: "no paths"}
	}
	out := make([]string, 0, len(in))
	for _, p := range in {
		cp, err := gate.CleanPath(p)
		if err != nil {
			return nil, gate.AsDenied(err)
		}
		if err := c.inside(cp); err != nil {
			return nil, err
		}
		out = append(out, cp)
	}
	out = c.withPairs(out)
	if len(out) > gate.MaxPaths {
		return nil, &gate.DeniedError{Reason: gate.ReasonBudgetExceeded, Message: fmt.Sprintf("%d paths, over the %d limit", len(out), gate.MaxPaths)}
	}
	return out, nil
}

// withPairs adds the pairs of paths, matched as the table compares names
// (gate.Folding.ExpandPairs), each spelt as its file is named on disk
// where it exists in another case: the lease then names the file a
// status reader finds.
func (c *Coordinator) withPairs(paths []string) []string {
	out := c.cfg.Folding.ExpandPairs(paths, c.cfg.PairRules)
	if c.cfg.Workspace == "" {
		return out
	}
	for i := len(paths); i < len(out); i++ {
		out[i] = gate.Literal(workspace.Spelling(c.cfg.Workspace, gate.Unescape(out[i])))
	}
	return out
}

// inside checks that the literal part of a clean path does not leave the
// workspace through a symlink (a path that does not exist yet is checked
// at its deepest existing directory).
func (c *Coordinator) inside(p string) error {
	if c.cfg.Workspace == "" {
		return nil
	}
	real := workspace.ResolveBelow(c.cfg.Workspace, filepath.FromSlash(gate.LiteralPrefix(p)))
	if _, in := workspace.Under(c.cfg.Workspace, real); !in {
		return &gate.DeniedError{Reason: gate.ReasonOutsideWorkspace,
			Message: fmt.Sprintf("path %q resolves to %s, outside the workspace", p, gate.ShownPath(real))}
	}
	return nil
}

// decideAndCommit decides an auto acquire of the paths of mr (whose files
// have the identities of mr.Files, its paths cleaned) for o, reclaiming the
// leases of dead holders first, and commits a grant. Call with c.mu held.
func (c *Coordinator) decideAndCommit(o gate.Owner, mr leasegate.MutateRequest, now time.Time) (gate.Decision, <-chan error, error) {
	paths := mr.Paths
	req := gate.Request{Op: gate.OpAcquire, Owner: o, Kind: gate.KindAuto, Scope: gate.Scope{Type: gate.ScopeTypeOf(paths), Paths: paths, Files: mr.Files}}
	d, pre, err := c.decideReclaiming(req, now)
	if err != nil || !d.Granted {
		return d, pre, err
	}
	if takesNewDir(mr) {
		markNewDir(d.Events)
	}
	c.fillIDs(d.Events, now)
	c.noteGatedInCheckout(d, paths, now)
	done, err := c.commit(d.Events)
	return d, both(pre, done), err
}

// noteGatedInCheckout remembers the paths of a write granted under its
// writer's own check-out. Such a grant adds no auto lease, so nothing else
// would tell the watcher that a gate saw the write, and the holder's own
// gated write would be reported as ungated. Call with c.mu held.
func (c *Coordinator) noteGatedInCheckout(d gate.Decision, paths []string, now time.Time) {
	for _, l := range d.Covered {
		if l.Kind == gate.KindCheckout {
			for _, p := range paths {
				c.gatedIn.note(p, now)
			}
			return
		}
	}
}

// decideReclaiming runs Decide; when the holders include a dead owner it
// reclaims that owner's leases (with evidence) and decides again. This is
// the seed's "validate current owner" step. Call with c.mu held.
func (c *Coordinator) decideReclaiming(req gate.Request, now time.Time) (gate.Decision, <-chan error, error) {
	var done <-chan error // nil: nothing reclaimed
	req.Scope.Files = c.freshFiles(req.Scope.Files)
	d := gate.Decide(req, c.table, now)
	if d.Reason != gate.ReasonHeldByOther {
		return d, done, nil
	}
	reclaimed := false
	for _, name := range holderNames(autoLeases(d.Conflicts)) {
		v := c.judgeHolder(name, now)
		if v.Status != gate.Dead {
			continue
		}
		rd, err := c.reclaim(name, v, now)
		if err != nil {
			return d, done, err
		}
		done, reclaimed = both(done, rd), true
	}
	if reclaimed {
		d = gate.Decide(req, c.table, now)
	}
	if d.Reason == gate.ReasonHeldByOther {
		nd, err := c.narrowNewDirs(req, d, now)
		if err != nil {
			return d, done, err
		}
		if nd != nil {
			done = both(done, nd)
			d = gate.Decide(req, c.table, now)
		}
	}
	return d, done, nil
}

// autoLeases keeps the auto leases of ls: the only ones a process's death
// ends. A check-out belongs to its name and TTL, never to a process.
func autoLeases(ls []gate.Lease) []gate.Lease {
	var out []gate.Lease
	for _, l := range ls {
		if l.Kind == gate.KindAuto {
			out = append(out, l)
		}
	}
	return out
}

func holderNames(ls []gate.Lease) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range ls {
		if !seen[l.Owner.Name] {
			seen[l.Owner.Name] = true
			out = append(out, l.Owner.Name)
		}
	}
	return out
}

func closedNil() <-chan error {
	ch := make(chan error, 1)
	ch <- nil
	return ch
}

// fillIDs gives each new grant a ULID. Call with c.mu held.
func (c *Coordinator) fillIDs(evs []gate.Event, now time.Time) {
	for i := range evs {
		if evs[i].Type == gate.EventGranted && evs[i].Lease.ID == gate.NoLease {
			evs[i].Lease.ID = gate.LeaseID(c.newID(now))
		}
	}
}

// settle turns a decision that needs no contention into a Result, after
// its events are durable.
func (c *Coordinator) settle(ctx context.Context, d gate.Decision, done <-chan error, err error) (leasegate.Result, error) {
	if err != nil {
		return leasegate.Result{}, err
	}
	if err := durable(ctx, done); err != nil {
		return leasegate.Result{}, err
	}
	if !d.Granted {
		c.answerTokens(nil, d.Holder)
		return leasegate.Result{Outcome: leasegate.Denied, Reason: d.Reason, Message: d.Message, Holder: d.Holder}, nil
	}
	return leasegate.Result{Outcome: leasegate.Granted, Reason: gate.ReasonOK, Leases: c.answerTokens(grantedLeases(d))}, nil
}

func grantedLeases(d gate.Decision) []gate.Lease {
	out := append([]gate.Lease(nil), d.Covered...)
	for _, e := range d.Events {
		if e.Type == gate.EventGranted {
			out = append(out, *e.Lease)
		}
	}
	return out
}

// mutationKey names a pending mutation: its owner and its paths, each by
// its key under the workspace's folding, so that the same write asked
// again in another case joins the contention it started.
func (c *Coordinator) mutationKey(owner string, paths []string) string {
	ps := make([]string, len(paths))
	for i, p := range paths {
		ps[i] = c.cfg.Folding.Key(p)
	}
	sort.Strings(ps)
	return owner + "\x00" + strings.Join(ps, "\x00")
}

// maxGitLockLen bounds the lock file name a requester reports: a path, as
// long as the longest one the kernel takes.
const maxGitLockLen = 4096

// validGitLock checks the git lock file a requester says its process
// holds: a name ending in ".lock" (or none), without control characters,
// since it is shown on terminals and in reports.
func validGitLock(lock string) error {
	if lock == "" {
		return nil
	}
	if len(lock) > maxGitLockLen || !strings.HasSuffix(lock, ".lock") || strings.ContainsFunc(lock, unicode.IsControl) {
		return fmt.Errorf("holds_git_lock %q is not a git lock file's name (a path ending in .lock, at most %d bytes, no control characters)", lock, maxGitLockLen)
	}
	return nil
}

// contend starts (or joins) the contention protocol for a denied mutation:
// one heartbeat event and exactly one retry, the requester's retry window
// after the denial at now. A mutation
// already waiting joins its pending contention: no second retry. Call with
// c.mu held.
func (c *Coordinator) contend(req leasegate.MutateRequest, d gate.Decision, now time.Time) (leasegate.Result, <-chan error) {
	key := c.mutationKey(req.Owner, req.Paths)
	if con := c.byKey[key]; con != nil {
		return con.contended(), closedNil()
	}
	id := c.newID(now)
	con := &contention{req: req, done: make(chan struct{})}
	w := req.RetryAfter
	if !w.Set() {
		w = c.windowsOf(req.Owner).Retry
	}
	retryAt, _ := c.sched.ScheduleRetry(id, now, w.After, func(time.Time) { c.retry(id) })
	con.view = leasegate.ContentionView{ID: id, Requester: req.Owner, Paths: req.Paths, Holder: *d.Holder,
		HolderAge: now.Sub(d.Holder.AcquiredAt), FirstDeniedAt: now, RetryAt: retryAt, RetryAfter: w, Outcome: leasegate.Contended,
		HoldsGitLock: req.HoldsGitLock}
	c.shownToken(&con.view.Holder)
	con.holdBy(d)
	c.contentions[id], c.byKey[key] = con, con
	file := c.conflictFile(req.Paths, *d.Holder)
	data, _ := json.Marshal(heartbeatData{Contention: id, File: file, Requester: req.Owner, Holder: d.Holder.Owner.Name,
		LeaseID: d.Holder.ID, HolderAge: con.view.HolderAge, RetryAt: retryAt, RetryAfter: w, HoldsGitLock: req.HoldsGitLock})
	c.log.Info("contention", "file", file, "requester", req.Owner, "holder", d.Holder.Owner.Name, "retry-at", retryAt, "retry-after", w)
	done, err := c.commit([]gate.Event{{Type: gate.EventContention, At: now, Actor: req.Owner, Path: file,
		LeaseID: d.Holder.ID, Reason: string(d.Reason), Data: data}})
	if err != nil {
		done = failed(err)
	}
	return con.contended(), done
}

func failed(err error) <-chan error {
	ch := make(chan error, 1)
	ch <- err
	return ch
}

func (con *contention) contended() leasegate.Result {
	v := con.view
	return leasegate.Result{Outcome: leasegate.Contended, Reason: gate.ReasonHeldByOther, Holder: &v.Holder, Contention: &v,
		Message: fmt.Sprintf("%s%s is held by %s; one retry at %s", gate.ShownFewPaths(v.Paths, ", "), sameFileNote(v.Holder, v.Paths, con.req.Files),
			v.Holder.Owner.Where(), v.RetryAt.UTC().Format(time.RFC3339))}
}

// conflictFile is the first of paths that h's scope overlaps, under the
// workspace's folding: a write of a.go and SRC/X.go refused for a lease on
// src/x.go names SRC/X.go on a volume that folds case.
func (c *Coordinator) conflictFile(paths []string, h gate.Lease) string {
	for _, p := range paths {
		if c.cfg.Folding.Overlaps(h.Scope, p) {
			return p
		}
	}
	return paths[0]
}
