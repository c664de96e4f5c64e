package coordinator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/gitrun"
)

// ReleaseCommitted releases owner's auto leases on the files committed
// since they were taken that are now clean (their content is the committed
// one): the files of HEAD and of each commit before it on its first-parent
// line made since the owner's oldest auto lease (see gitCommitted); and
// those on names that are gone with git showing no change of them (the
// temporary name of an atomic save). Leases on files that are still dirty
// are kept: the owner is still changing them.
// A file of a repository nested in the tree (a submodule) is judged by
// that repository's HEAD and status, since the superproject records only
// which commit of it is checked out. It returns the released leases.
func (c *Coordinator) ReleaseCommitted(ctx context.Context, owner string) ([]gate.Lease, error) {
	if c.cfg.Workspace == "" {
		return nil, fmt.Errorf("release on commit: no workspace configured")
	}
	if err := c.callerOf(ctx).actAs(owner); err != nil {
		return nil, err
	}
	c.mu.Lock()
	leases := c.table.ByOwner(owner)
	c.mu.Unlock()
	// The repositories are looked up and asked outside the lock: they
	// cost a stat per directory and two git processes each.
	repos := nestedRepos(c.cfg.Workspace, leases)
	since := oldestAuto(leases)
	states := map[string]repoState{}
	for _, prefix := range repos {
		if _, done := states[prefix]; done {
			continue
		}
		st, err := gitState(ctx, c.cfg.Workspace, prefix, since, c.cfg.Folding)
		if err != nil {
			return nil, err
		}
		states[prefix] = st
	}
	return c.releaseClean(ctx, owner, repos, states, vanished(c.cfg.Workspace, leases))
}

// vanished returns the paths of the releasable file leases that name no
// file now: the temporary name an atomic save wrote and renamed onto the
// file it saved (sed -i, editors, os.replace), or a file made and removed
// again. Looked at after git's status, so a name made again meanwhile is
// seen and kept.
func vanished(root string, leases []gate.Lease) map[string]bool {
	gone := map[string]bool{}
	for _, l := range leases {
		if !releasable(l) || l.Scope.Type != gate.ScopeFile {
			continue
		}
		for _, p := range l.Scope.Paths {
			if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(gate.Unescape(p)))); errors.Is(err, fs.ErrNotExist) {
				gone[p] = true
			}
		}
	}
	return gone
}

// releaseClean releases owner's auto leases whose every path is
// committed and clean in its repository's state. A path leased since the
// repositories were looked up is judged by the workspace's own
// repository: rightly for its files, and a nested repository's file stays
// leased, since the superproject commits none.
func (c *Coordinator) releaseClean(ctx context.Context, owner string, repos map[string]string, states map[string]repoState, gone map[string]bool) ([]gate.Lease, error) {
	c.mu.Lock()
	now := c.clock.Now()
	var evs []gate.Event
	var released []gate.Lease
	for _, l := range c.table.ByOwner(owner) {
		if !releasable(l) {
			continue
		}
		if head, ok := allClean(contentPaths(l), repos, states, gone, c.cfg.Folding); ok {
			evs = append(evs, gate.Event{Type: gate.EventReleased, At: now, Actor: owner, LeaseID: l.ID, Reason: "committed in " + head})
			released = append(released, l)
		}
	}
	done, err := c.commit(evs)
	c.mu.Unlock()
	if err == nil {
		err = durable(ctx, done)
	}
	return released, err
}

// contentPaths returns the paths of l whose content a commit can hold:
// those of a narrowed new directory's lease without the directories it
// keeps on the way to its entries ("own" beside "own/a/**"), which git
// does not track and which a commit therefore never calls clean. A lease
// of such directories alone stays leased, as an empty new directory does.
func contentPaths(l gate.Lease) []string {
	if !l.NewDir || len(l.Scope.Paths) < 2 {
		return l.Scope.Paths
	}
	var out []string
	for _, p := range l.Scope.Paths {
		if gate.IsGlob(p) || !slices.ContainsFunc(l.Scope.Paths, func(q string) bool { return strings.HasPrefix(q, p+"/") }) {
			out = append(out, p)
		}
	}
	return out
}

// releasable reports whether a commit may release l: an auto lease of
// files, or of the subtree of a directory the owner made, renamed or
// removed (dir/**). Check-outs end by check-in.
func releasable(l gate.Lease) bool {
	return l.Kind == gate.KindAuto && (l.Scope.Type == gate.ScopeFile || l.Scope.Type == gate.ScopeSparse)
}

// oldestAuto returns when the oldest of the releasable leases was taken
// (the zero time when there is none).
func oldestAuto(leases []gate.Lease) time.Time {
	var oldest time.Time
	for _, l := range leases {
		if releasable(l) && (oldest.IsZero() || l.AcquiredAt.Before(oldest)) {
			oldest = l.AcquiredAt
		}
	}
	return oldest
}

// repoState is what one repository of the tree says after a commit: its
// HEAD as the release names it, and the files committed since the leases
// were taken and those that differ from HEAD, by their workspace key.
type repoState struct {
	head             string
	committed, dirty map[string]bool
}

// gitState reads the state of the repository at prefix (a
// workspace-relative directory, "" for the workspace's own) under root,
// counting the commits made since since as committed (see gitCommitted).
func gitState(ctx context.Context, root, prefix string, since time.Time, f gate.Folding) (repoState, error) {
	dir := filepath.Join(root, filepath.FromSlash(prefix))
	head, committed, err := gitCommitted(ctx, dir, prefix, since, f)
	if err != nil {
		return repoState{}, err
	}
	dirty, err := gitDirty(ctx, dir, prefix, f)
	if err != nil {
		return repoState{}, err
	}
	if prefix != "" {
		head += " of " + prefix
	}
	return repoState{head: head, committed: committed, dirty: dirty}, nil
}

// nestedRepos maps each path of the leases' auto file leases to the
// repository it lies in, by its workspace-relative directory: "" for the
// workspace's own, else the repository nested in the tree (a submodule)
// that holds it. The workspace's own is always there, as "".
func nestedRepos(root string, leases []gate.Lease) map[string]string {
	repos := map[string]string{"": ""}
	for _, l := range leases {
		if !releasable(l) {
			continue
		}
		for _, p := range l.Scope.Paths {
			repos[p] = repoOf(root, gate.Unescape(p))
		}
	}
	return repos
}

// repoOf returns the directory of the innermost repository nested in the
// tree at root that holds rel (one with a .git of its own), or "".
func repoOf(root, rel string) string {
	for d := path.Dir(strings.TrimSuffix(rel, "/")); d != "." && d != "/"; d = path.Dir(d) {
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(d), ".git")); err == nil {
			return d
		}
	}
	return ""
}

// allClean reports whether every path is committed and clean in its
// repository (see committedClean), or gone and clean, and names the commit
// of the first.
func allClean(paths []string, repos map[string]string, states map[string]repoState, gone map[string]bool, f gate.Folding) (string, bool) {
	var head string
	for i, p := range paths {
		st := states[repos[p]]
		if !st.committedClean(p, f) && !(gone[p] && !st.dirty[f.Key(p)]) {
			return "", false
		}
		if i == 0 {
			head = st.head
		}
	}
	return head, true
}

// committedClean reports whether the leased path p is committed and clean
// in st: a file committed and not dirty; a subtree (dir/**) with a file
// beneath committed and none dirty, so a directory made and committed
// whole is released like its files, and an empty one stays leased. The
// sets hold git's paths by their key under f: git prints a path as its
// index spells it, which on a volume that folds case (where git sets
// core.ignorecase) need not be the spelling a lease was granted with.
func (st repoState) committedClean(p string, f gate.Folding) bool {
	dir, subtree := strings.CutSuffix(p, "/**")
	if !subtree || gate.IsGlob(dir) {
		k := f.Key(p)
		return st.committed[k] && !st.dirty[k]
	}
	prefix := f.Key(dir + "/")
	return anyUnder(st.committed, prefix) && !anyUnder(st.dirty, prefix)
}

// anyUnder reports whether a key of set starts with prefix.
func anyUnder(set map[string]bool, prefix string) bool {
	for k := range set {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// maxCommitsJudged bounds how many commits of HEAD's first-parent line a
// release on commit reads: a rebase, a cherry-picked range or `git am`
// makes several in a row, far fewer than this; an owner whose leases are
// older than this many commits keeps the leases of files only the older
// ones changed until it ends, stops or commits them again.
const maxCommitsJudged = 1000

// gitCommitted lists the files committed in the repository at dir since
// since, by their key under f with prefix before them: those HEAD changed
// and those of each commit before it on HEAD's first-parent line whose
// committer date is not older than since, each against its first parent
// (a merge commit's files are what it brought in). A rebase, a
// cherry-picked range or `git am` commits several in a row before the
// release runs, so HEAD alone would leave the earlier ones' files leased.
// Git dates commits to the second, so since is taken down to its second.
func gitCommitted(ctx context.Context, dir, prefix string, since time.Time, f gate.Folding) (string, map[string]bool, error) {
	out, err := git(ctx, dir, "rev-parse", "--short", "HEAD")
	if err != nil {
		return "", nil, err
	}
	head := strings.TrimSpace(string(out))
	commits, err := commitsSince(ctx, dir, since)
	if err != nil {
		return "", nil, err
	}
	cmd := gitrun.Command(ctx, dir, nil, "diff-tree", "--stdin", "--no-ext-diff", "--no-textconv", "--no-renames", "--root", "--no-commit-id", "--name-only", "-r", "-z")
	cmd.Stdin = bytes.NewReader(commits)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if out, err = cmd.Output(); err != nil {
		return "", nil, gitrun.Failed([]string{"diff-tree", "--stdin"}, err, stderr.String())
	}
	return head, nulSet(out, prefix, f), nil
}

// commitsSince lists HEAD and the commits before it on its first-parent
// line dated since or later, newest first, a line each: the commit and its
// first parent (the commit alone for a root), as diff-tree --stdin takes
// them.
func commitsSince(ctx context.Context, dir string, since time.Time) ([]byte, error) {
	var out []byte
	var err error
	// With no auto lease (since is zero) only HEAD's files matter.
	if !since.IsZero() {
		out, err = git(ctx, dir, "rev-list", "--first-parent", "--parents", "--max-count="+strconv.Itoa(maxCommitsJudged),
			"--max-age="+strconv.FormatInt(since.Unix(), 10), "HEAD")
	}
	if err == nil && len(bytes.TrimSpace(out)) == 0 {
		// HEAD itself is older than since (a branch checked out):
		// its files still count, as they always did.
		out, err = git(ctx, dir, "rev-list", "--parents", "--max-count=1", "HEAD")
	}
	if err != nil {
		return nil, err
	}
	var lines bytes.Buffer
	for line := range strings.Lines(string(out)) {
		if fields := strings.Fields(line); len(fields) > 0 {
			lines.WriteString(strings.Join(fields[:min(2, len(fields))], " ") + "\n")
		}
	}
	return lines.Bytes(), nil
}

// gitDirty lists files that differ from HEAD or the index, untracked ones
// included, by their key under f with prefix before them.
func gitDirty(ctx context.Context, dir, prefix string, f gate.Folding) (map[string]bool, error) {
	out, err := git(ctx, dir, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	recs := bytes.Split(out, []byte{0})
	for i := 0; i < len(recs); i++ {
		r := recs[i]
		if len(r) < 4 {
			continue
		}
		set[gitKey(prefix, r[3:], f)] = true
		if r[0] == 'R' || r[0] == 'C' {
			i++ // the next record is the rename's source
			if i < len(recs) {
				set[gitKey(prefix, recs[i], f)] = true
			}
		}
	}
	return set, nil
}

func nulSet(out []byte, prefix string, f gate.Folding) map[string]bool {
	set := map[string]bool{}
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) > 0 {
			set[gitKey(prefix, p, f)] = true
		}
	}
	return set
}

// gitKey is the key under f of the file git names p in the repository at
// prefix: of the pattern naming that file alone (gate.Literal), as its
// lease holds it.
func gitKey(prefix string, p []byte, f gate.Folding) string {
	return f.Key(gate.Literal(path.Join(prefix, string(p))))
}

func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := gitrun.Command(ctx, dir, nil, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, gitrun.Failed(args, err, stderr.String())
	}
	return out, nil
}
