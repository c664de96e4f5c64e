package coordinator

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/gitrun"
)

// ReleaseCommitted releases owner's auto leases on the files of the HEAD
// commit that are now clean (their content is the committed one). Leases on
// files that are still dirty are kept: the owner is still changing them.
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
	states := map[string]repoState{}
	for _, prefix := range repos {
		if _, done := states[prefix]; done {
			continue
		}
		st, err := gitState(ctx, c.cfg.Workspace, prefix, c.cfg.Folding)
		if err != nil {
			return nil, err
		}
		states[prefix] = st
	}
	return c.releaseClean(ctx, owner, repos, states)
}

// releaseClean releases owner's auto file leases whose every path is
// committed and clean in its repository's state. A path leased since the
// repositories were looked up is judged by the workspace's own
// repository: rightly for its files, and a nested repository's file stays
// leased, since the superproject commits none.
func (c *Coordinator) releaseClean(ctx context.Context, owner string, repos map[string]string, states map[string]repoState) ([]gate.Lease, error) {
	c.mu.Lock()
	now := c.clock.Now()
	var evs []gate.Event
	var released []gate.Lease
	for _, l := range c.table.ByOwner(owner) {
		if l.Kind != gate.KindAuto || l.Scope.Type != gate.ScopeFile {
			continue
		}
		if head, ok := allClean(l.Scope.Paths, repos, states, c.cfg.Folding); ok {
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

// repoState is what one repository of the tree says after a commit: its
// HEAD as the release names it, and the files HEAD changed and those that
// differ from it, by their workspace key.
type repoState struct {
	head             string
	committed, dirty map[string]bool
}

// gitState reads the state of the repository at prefix (a
// workspace-relative directory, "" for the workspace's own) under root.
func gitState(ctx context.Context, root, prefix string, f gate.Folding) (repoState, error) {
	dir := filepath.Join(root, filepath.FromSlash(prefix))
	head, committed, err := gitCommitted(ctx, dir, prefix, f)
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
		if l.Kind != gate.KindAuto || l.Scope.Type != gate.ScopeFile {
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
// repository, and names the commit of the first. The sets hold git's
// paths by their key under f: git prints a path as its index spells it,
// which on a volume that folds case (where git sets core.ignorecase) need
// not be the spelling a lease was granted with.
func allClean(paths []string, repos map[string]string, states map[string]repoState, f gate.Folding) (string, bool) {
	var head string
	for i, p := range paths {
		st, k := states[repos[p]], f.Key(p)
		if !st.committed[k] || st.dirty[k] {
			return "", false
		}
		if i == 0 {
			head = st.head
		}
	}
	return head, true
}

// gitCommitted lists the files changed by the HEAD commit of the
// repository at dir, by their key under f with prefix before them.
func gitCommitted(ctx context.Context, dir, prefix string, f gate.Folding) (string, map[string]bool, error) {
	out, err := git(ctx, dir, "rev-parse", "--short", "HEAD")
	if err != nil {
		return "", nil, err
	}
	head := strings.TrimSpace(string(out))
	out, err = git(ctx, dir, "diff-tree", "--no-ext-diff", "--no-textconv", "--root", "--no-commit-id", "--name-only", "-r", "-z", "HEAD")
	if err != nil {
		return "", nil, err
	}
	return head, nulSet(out, prefix, f), nil
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
