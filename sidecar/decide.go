package sidecar

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/intercept"
	"github.com/leasegate/leasegate/workspace"
)

var _ intercept.Decider = (*Sidecar)(nil)

// Decide answers one held syscall: paths outside the gate pass at once,
// the state directory and leasegate.json are refused, gated paths go
// through the coordinator's contention protocol, and a change of a rule
// file is recorded before it is let through.
func (s *Sidecar) Decide(ctx context.Context, m intercept.Mutation) error {
	m = s.dealias(m)
	if err := s.decide(ctx, m); err != nil {
		return err
	}
	return s.recordRuleChanges(ctx, m)
}

func (s *Sidecar) decide(ctx context.Context, m intercept.Mutation) error {
	if s.isAborted() {
		// The tree is being killed; a process outside the halted group
		// (a setsid daemon) gets no grant meanwhile.
		return syscall.EBUSY
	}
	if s.linksOut(m) {
		s.notef("refused link of %s to %s by pid %d: writes through a name outside the workspace would pass no gate; copy the file instead",
			gate.ShownPath(m.Paths[1]), gate.ShownPath(m.Paths[0]), m.PID)
		return syscall.EXDEV
	}
	if s.coveredFast(m) {
		return nil
	}
	if removesNonEmptyDir(m) {
		return syscall.ENOTEMPTY
	}
	if makesExistingName(m) {
		return syscall.EEXIST
	}
	if abs, err := s.unnameable(m); err != nil {
		s.notef("refused %s of %s by pid %d: no lease can name it (%v)", m.Op, gate.ShownPath(".../"+filepath.Base(abs)), m.PID, err)
		return syscall.ENAMETOOLONG
	}
	paths, refuse := s.gatedPaths(m)
	if refuse {
		if holdsStateDir(s.cfg.Workspace, m) {
			return syscall.ENOTEMPTY
		}
		s.notef("refused %s of %s by pid %d: workers may not change leasegate's state directory or leasegate.json", m.Op, gate.ShownPaths(m.Paths, " "), m.PID)
		return syscall.EACCES
	}
	if len(paths) == 0 || s.held.covers(paths) {
		return nil
	}
	if m.Op == intercept.OpMkdir && len(paths) == 1 {
		took, holder := s.takeSubtree(ctx, paths[0])
		if took {
			return nil
		}
		if s.madeByHolder(ctx, m, paths[0], holder) {
			return syscall.EEXIST
		}
	}
	halted := false
	var cd *countdown
	defer func() { cd.end() }()
	req := leasegate.MutateRequest{Owner: s.cfg.Name, Op: string(m.Op), Paths: paths, Files: s.identities(paths), RetryAfter: s.cfg.Windows.Retry,
		HoldsGitLock: s.heldGitLock(m.PID)}
	r, err := api.Gate(ctx, s.cfg.Client, req, s.observer(req, &halted, &cd))
	if gone := (*api.HoldGoneError)(nil); errors.As(err, &gone) {
		s.notef("%s of %s is asked for again, gated: %v", m.Op, gate.ShownPaths(paths, " "), err)
		r, err = api.Gate(ctx, s.cfg.Client, req, s.observer(req, &halted, &cd))
	}
	if ownerLost(err) && s.registerAgain(ctx, err) {
		r, err = api.Gate(ctx, s.cfg.Client, req, s.observer(req, &halted, &cd))
	}
	cd.end()
	if err == nil && r.Outcome == leasegate.Aborted {
		// Killed while still halted: resumed first, the worker would see
		// the failed write and run on (and be granted its next writes)
		// until the kill reached it.
		s.abort()
	}
	if halted {
		s.resume()
	}
	if err != nil {
		if sig, interrupted := intercept.InterruptedBy(ctx); interrupted {
			s.notef("%s of %s interrupted by %s: the write is withdrawn and fails with EINTR", m.Op, gate.ShownPaths(paths, " "), signalName(sig))
			return syscall.EINTR
		}
		if ctx.Err() == nil {
			s.notef("%s of %s refused: %v", m.Op, gate.ShownPaths(paths, " "), err)
		}
		return syscall.EACCES
	}
	switch r.Outcome {
	case leasegate.Granted:
		s.held.add(s.cfg.Name, r.Leases)
		if halted && r.Message != "" {
			s.notef("%s of %s proceeds: %s", m.Op, gate.ShownPaths(paths, " "), r.Message)
		}
		return nil
	}
	s.notef("%s of %s failed with EBUSY: %s", m.Op, gate.ShownPaths(paths, " "), r.Message)
	return syscall.EBUSY
}

// holdsStateDir reports whether m removes a directory that holds the
// state directory. Such a directory is never empty, so the kernel would
// refuse its removal with ENOTEMPTY: that is the answer, without a notice.
// git tries it as it cleans up emptied directories up to the top (git
// stash, git checkout), and ignores the failure; a notice of a refused
// change of the state directory would alarm for nothing.
func holdsStateDir(ws *workspace.Workspace, m intercept.Mutation) bool {
	if m.Op != intercept.OpRmdir || len(m.Paths) != 1 {
		return false
	}
	rel, above := workspace.Under(m.Paths[0], ws.StateDir)
	return above && rel != "."
}

// removesNonEmptyDir reports whether m removes a directory that has
// entries. The kernel refuses that with ENOTEMPTY whoever holds what lies
// beneath, so that is the answer, given at once: gated, the removal would
// wait for another owner's file there and open a blocker, or lease the
// whole subtree to a worker that removes nothing. git tries it on each
// directory it removed a file from (git rm, checkout, stash, reset) and
// expects the failure. An entry made or removed by another process
// meanwhile changes nothing: the answer is the kernel's at the moment the
// directory was read. rmdir does not follow a final symlink (it fails
// with ENOTDIR), so neither does this.
func removesNonEmptyDir(m intercept.Mutation) bool {
	if m.Op != intercept.OpRmdir || len(m.Paths) != 1 {
		return false
	}
	if fi, err := os.Lstat(m.Paths[0]); err != nil || !fi.IsDir() {
		return false
	}
	d, err := os.Open(m.Paths[0])
	if err != nil {
		return false
	}
	defer d.Close()
	names, _ := d.Readdirnames(1)
	return len(names) > 0
}

// makesExistingName reports whether m makes a directory whose name
// already exists. The kernel fails that with EEXIST and changes nothing,
// so that is the answer, given at once. `mkdir -p a/b/new` tries a mkdir of
// each directory along the way and expects the failure; gated, the mkdir
// of an existing `a` leased all of `a/**` to the worker (a new directory's
// subtree, see takeSubtree), and every other worker's write beneath it
// waited for that worker. A name made by another process meanwhile changes
// nothing: the answer is the kernel's at the moment the name was looked
// up. mkdir does not follow a final symlink, so neither does this.
func makesExistingName(m intercept.Mutation) bool {
	if m.Op != intercept.OpMkdir || len(m.Paths) != 1 {
		return false
	}
	_, err := os.Lstat(m.Paths[0])
	return err == nil
}

// linksOut reports whether m makes a hard link outside the workspace to a
// gated file. The gate sees a write by the name it is made through, so such
// a name would let any process write the file ungated long after the link's
// lease is gone. It is refused with EXDEV, what a link across file systems
// meets: cp, rsync and package managers that link where they can copy
// instead.
func (s *Sidecar) linksOut(m intercept.Mutation) bool {
	if m.Op != intercept.OpLink || len(m.Paths) != 2 {
		return false
	}
	return s.cfg.Workspace.Locate(m.Paths[0], workspace.ReachFile).Class == workspace.Outside &&
		s.rule.ClassifyPath(m.Paths[1], workspace.ReachFile).Class == workspace.Gated
}

// takeSubtree tries to lease a directory the worker is creating (dir, a
// pattern as gatedPaths makes it) together
// with everything that will be put under it: nobody can hold a file there
// unless they leased the name in advance, and then the ordinary per-path
// protocol runs instead. It reports whether the subtree was granted. The
// coordinator marks the lease as a new directory's (gate.Lease.NewDir):
// another owner's write of a new name beneath it narrows it to what
// exists there, and the event of that empties this sidecar's cache. When
// it is refused, holder is the lease in the way, if the answer names one.
func (s *Sidecar) takeSubtree(ctx context.Context, dir string) (took bool, holder *gate.Lease) {
	r, err := s.cfg.Client.Mutate(ctx, leasegate.MutateRequest{Owner: s.cfg.Name, Op: string(intercept.OpMkdir), Paths: []string{gate.Subtree(gate.Unescape(dir))}, Try: true})
	if err != nil {
		return false, nil
	}
	if r.Outcome != leasegate.Granted {
		return false, r.Holder
	}
	s.held.add(s.cfg.Name, r.Leases)
	return true, nil
}

// newDirSettle bounds how long a mkdir refused because another worker is
// creating the same directory waits for that directory to appear. The
// other worker was granted its mkdir before this one asked, so the kernel
// makes it within microseconds of its sidecar's answer; a second covers a
// loaded machine. Past it the mkdir is gated as any write is.
const newDirSettle = time.Second

// madeByHolder reports whether the directory m makes (dir, as gatedPaths
// names it) is the one holder's new directory lease was taken for, and
// exists by now or within newDirSettle: then the kernel's answer to m is
// EEXIST, as it is for a directory found at once (makesExistingName).
// Twenty-five workers running `mkdir -p own/$NAME` at once into a fresh
// own/ all make own; all but the first are refused its subtree while the
// first one's mkdir is still on its way, and would otherwise wait on own
// itself, the one name that stays the creator's.
func (s *Sidecar) madeByHolder(ctx context.Context, m intercept.Mutation, dir string, holder *gate.Lease) bool {
	if holder == nil || !holder.NewDir || !slices.ContainsFunc(holder.Scope.Paths, func(p string) bool {
		return p == dir || p == gate.Subtree(gate.Unescape(dir))
	}) {
		return false
	}
	deadline := s.cfg.Clock.Now().Add(newDirSettle)
	for !makesExistingName(m) {
		if !s.cfg.Clock.Now().Before(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-s.cfg.Clock.After(time.Millisecond):
		}
	}
	return true
}

// coveredFast answers, without classifying, a mutation whose every path
// lies inside the workspace (outside the state directory) and under a lease
// this worker holds: whatever the rule says of such a path, the worker may
// change it. This is the common case of a checkout or build filling a
// directory the worker created.
//
// Like DecideNow, Decide compares paths lexically: the seccomp gate reports
// them with their directories' symlinks resolved.
func (s *Sidecar) coveredFast(m intercept.Mutation) bool {
	var buf [2]string
	rels := buf[:0]
	reach := reachOf(m.Op, m.Op == intercept.OpRename)
	for _, abs := range m.Paths {
		v := s.cfg.Workspace.Locate(abs, reach)
		if v.Class != workspace.Gated || s.cfg.Workspace.AffectsIgnore(abs) {
			return false
		}
		if _, rule := s.cfg.Workspace.RuleFile(abs); rule {
			return false
		}
		rels = append(rels, gate.Literal(v.Rel))
	}
	return len(rels) > 0 && s.held.covers(rels)
}

// reachOf is how much a mutation op of a path changes; dir says whether a
// renamed path is a directory.
func reachOf(op intercept.Op, dir bool) workspace.Reach {
	switch {
	case op == intercept.OpRmdir || (op == intercept.OpRename && dir):
		return workspace.ReachTree
	case op == intercept.OpMkdir:
		return workspace.ReachDir
	}
	return workspace.ReachFile
}

// gatedPaths classifies a mutation's paths, and returns the gated ones as
// the patterns that name them (gate.Literal: a file named "[id]" is that
// file, not a class). A directory rename or removal covers the
// directory's subtree. refuse is true when a path is (or holds)
// leasegate's state directory, or is leasegate.json.
func (s *Sidecar) gatedPaths(m intercept.Mutation) (paths []string, refuse bool) {
	reach := reachOf(m.Op, m.Op == intercept.OpRename && len(m.Paths) > 0 && isDir(m.Paths[0]))
	for i, abs := range m.Paths {
		// A rename is also checked as a tree whatever isDir saw of its
		// source, as the fast paths check it: a directory holding the state
		// directory is refused even where its source cannot be examined.
		v := s.rule.ClassifyPath(abs, reach)
		if v.Refused() || (m.Op == intercept.OpRename && s.cfg.Workspace.Locate(abs, workspace.ReachTree).Refused()) {
			return nil, true
		}
		if m.Op == intercept.OpRename && i == 1 && s.refUpdate(abs) {
			s.noteCommit()
		}
		if s.cfg.Workspace.AffectsIgnore(abs) {
			defer s.rule.Invalidate()
		}
		switch v.Class {
		case workspace.Outside:
			if rel, linked := s.linkedIn(m.Op, abs); linked {
				paths = append(paths, rel)
			}
		case workspace.Ignored, workspace.Excluded:
			// A rule change never releases a held path.
			if !s.leased.covers(gate.Literal(v.Rel), reach == workspace.ReachTree) {
				continue
			}
			fallthrough
		case workspace.Gated:
			if reach == workspace.ReachTree {
				paths = append(paths, gate.Subtree(v.Rel))
			} else {
				paths = append(paths, gate.Literal(v.Rel))
			}
		}
	}
	return paths, false
}

// unnameable returns a path of m that lies in the workspace but that no
// lease can name, and why: reached by a relative name from a deep working
// directory, it is over gate.MaxPathLen from the root. Classified as
// outside the workspace, it would pass ungated.
func (s *Sidecar) unnameable(m intercept.Mutation) (string, error) {
	for _, abs := range m.Paths {
		if v := s.cfg.Workspace.Locate(abs, workspace.ReachFile); v.Class == workspace.Gated && len(v.Rel) > gate.MaxPathLen {
			return abs, fmt.Errorf("its path from the workspace root is %d bytes, over the %d byte limit", len(v.Rel), gate.MaxPathLen)
		}
	}
	return "", nil
}

// refUpdate reports whether abs, the new name of a rename, is HEAD or a
// branch of this checkout's repository: git renames "<ref>.lock" onto the
// ref when a commit lands. In a linked worktree both lie outside the root.
func (s *Sidecar) refUpdate(abs string) bool {
	ws := s.cfg.Workspace
	_, inGit := workspace.Under(ws.GitDir, abs)
	_, inCommon := workspace.Under(ws.CommonDir, abs)
	return (inGit || inCommon) && (strings.HasSuffix(abs, "/HEAD") || strings.Contains(abs, "/refs/heads/"))
}

// noteCommit hints watchCommits that a commit may have landed.
func (s *Sidecar) noteCommit() {
	select {
	case s.commits <- struct{}{}:
	default:
	}
}

// reportAt says where the person running the worker reads blocker id's
// report: its Markdown file, which the coordinator writes before it
// answers, or, when the file is not there (a full disk), the command
// that prints it.
func (s *Sidecar) reportAt(id string) string {
	md := filepath.Join(s.cfg.Workspace.StateDir, "blockers", id+".md")
	if _, err := os.Stat(md); err != nil {
		return "`leasegate blockers " + id + "` (its file could not be written yet: the coordinator's log says why)"
	}
	return md
}

// heldPart names what a contended write waits for. A write of one file
// names that file. A rename (both names) or a directory's removal (its
// subtree, dir/**) names the mutation and then what the holder's lease
// holds, since saying the whole subtree, or both names, were held would
// not be true: "rename of pkg/a/** to pkg/b/**: pkg/a/x.go". A write of
// several files whose holder's lease holds just those files names each
// once: "src/app.go, src/app_test.go".
func heldPart(c leasegate.ContentionView, req leasegate.MutateRequest) string {
	if len(c.Paths) == 1 && !strings.HasSuffix(c.Paths[0], "/**") {
		return gate.ShownPath(c.Paths[0]) + sameFile(c.Holder, req)
	}
	if req.Op != string(intercept.OpRename) && samePaths(c.Paths, c.Holder.Scope.Paths) {
		return gate.ShownFewPaths(c.Paths, ", ")
	}
	what := gate.ShownFewPaths(c.Paths, ", ")
	if req.Op == string(intercept.OpRename) && len(c.Paths) == 2 {
		what = gate.ShownPath(c.Paths[0]) + " to " + gate.ShownPath(c.Paths[1])
	}
	return fmt.Sprintf("%s of %s: %s", req.Op, what, gate.ShownFewPaths(c.Holder.Scope.Paths, ", "))
}

// samePaths reports whether a and b hold the same paths, in any order.
func samePaths(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// slowAnswer is how long a write waits for the coordinator's answer
// before the person running the worker is told it is held: a decision
// takes milliseconds, a commit to etcd tens of them.
const slowAnswer = 2 * time.Second

// observer reports the protocol's stages to the person running the
// worker, and halts the worker while a blocker is open.
func (s *Sidecar) observer(req leasegate.MutateRequest, halted *bool, cd **countdown) api.Observer {
	paths := req.Paths
	return api.Observer{
		Log: s.log,
		Contended: func(r leasegate.Result) {
			c := r.Contention
			s.notef("contention: %s is held by %s (for %s); the write waits for one retry at %s (in %s)",
				heldPart(*c, req), c.Holder.Owner.Where(), c.HolderAge.Round(time.Second),
				c.RetryAt.UTC().Format(time.RFC3339), c.RetryAt.Sub(s.cfg.Clock.Now()).Round(time.Second))
			if note := blocker.GitLockNote(c.HoldsGitLock, c.ID, c.Holder.Owner.Name); note != "" {
				s.notef("contention %s: %s", c.ID, note)
			}
			(*cd).end()
			*cd = s.startCountdown(*c)
		},
		Blocked: func(r leasegate.Result) bool {
			(*cd).end()
			s.halt()
			*halted = true
			b := r.Blocker
			what := gate.ShownPath(b.Path)
			if r.Contention != nil {
				what = heldPart(*r.Contention, req)
			}
			s.notef("BLOCKED: %s is still held by %s after the retry; worker %s is halted.\n"+
				"  report: %s\n  resolve: leasegate resolve %s --retry   (or --deny, or --abort)",
				what, b.Holder.Owner.Name, s.cfg.Name, s.reportAt(b.ID), b.ID)
			if note := b.GitLockNote(); note != "" {
				s.notef("blocker %s: %s", b.ID, note)
			}
			return true
		},
		Unavailable: func(err error, attempt int) {
			if attempt == 1 || attempt%10 == 0 { // err reads "coordinator unavailable at SOCKET: why"
				s.notef("%v; the write to %s is held and retried", err, gate.ShownPaths(paths, " "))
			}
		},
		Slow: func(waited time.Duration) {
			why := "a paused or overloaded coordinator: `leasegate status` shows it"
			if s.cfg.Workspace.Config.Cluster != nil {
				why = "its lease table is shared on etcd, which may not answer: `leasegate status` warns once its session has lapsed"
			}
			s.notef("the coordinator has not answered about the write to %s for %s; the write is held until it does (%s)",
				gate.ShownPaths(paths, " "), waited, why)
		},
		SlowAfter: slowAnswer,
		Clock:     s.cfg.Clock,
	}
}

// dealias gives m the workspace path of each file it names through a bind
// mount of the workspace's directories (workspace.Alias): such a path lies
// outside the root, and would pass the gate as a write outside the
// workspace while it changes a workspace file. m's own slice is left as
// it is.
func (s *Sidecar) dealias(m intercept.Mutation) intercept.Mutation {
	if len(s.aliases) == 0 {
		return m
	}
	paths := m.Paths
	for i, p := range m.Paths {
		if w, through := workspace.Dealias(s.aliases, p); through {
			if &paths[0] == &m.Paths[0] {
				paths = slices.Clone(m.Paths)
			}
			paths[i] = w
		}
	}
	m.Paths = paths
	return m
}
