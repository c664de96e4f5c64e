package coordinator

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/gitrun"
)

// ReleaseCommitted releases owner's auto leases on the files of the HEAD
// commit that are now clean (their content is the committed one). Leases on
// files that are still dirty are kept: the owner is still changing them.
// It returns the released leases.
func (c *Coordinator) ReleaseCommitted(ctx context.Context, owner string) ([]gate.Lease, error) {
	if c.cfg.Workspace == "" {
		return nil, fmt.Errorf("release on commit: no workspace configured")
	}
	if err := c.callerOf(ctx).actAs(owner); err != nil {
		return nil, err
	}
	f := c.cfg.Folding
	head, committed, err := gitCommitted(ctx, c.cfg.Workspace, f)
	if err != nil {
		return nil, err
	}
	dirty, err := gitDirty(ctx, c.cfg.Workspace, f)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	now := c.clock.Now()
	var evs []gate.Event
	var released []gate.Lease
	for _, l := range c.table.ByOwner(owner) {
		if l.Kind == gate.KindAuto && l.Scope.Type == gate.ScopeFile && allClean(l.Scope.Paths, committed, dirty, f) {
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

// allClean reports whether every path is committed and clean. The sets
// hold git's paths by their key under f: git prints a path as its index
// spells it, which on a volume that folds case (where git sets
// core.ignorecase) need not be the spelling a lease was granted with.
func allClean(paths []string, committed, dirty map[string]bool, f gate.Folding) bool {
	for _, p := range paths {
		if k := f.Key(p); !committed[k] || dirty[k] {
			return false
		}
	}
	return true
}

// gitCommitted lists the files changed by the HEAD commit, by their key
// under f.
func gitCommitted(ctx context.Context, dir string, f gate.Folding) (string, map[string]bool, error) {
	out, err := git(ctx, dir, "rev-parse", "--short", "HEAD")
	if err != nil {
		return "", nil, err
	}
	head := strings.TrimSpace(string(out))
	out, err = git(ctx, dir, "diff-tree", "--no-ext-diff", "--no-textconv", "--root", "--no-commit-id", "--name-only", "-r", "-z", "HEAD")
	if err != nil {
		return "", nil, err
	}
	return head, nulSet(out, f), nil
}

// gitDirty lists files that differ from HEAD or the index, untracked ones
// included, by their key under f.
func gitDirty(ctx context.Context, dir string, f gate.Folding) (map[string]bool, error) {
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
		set[f.Key(string(r[3:]))] = true
		if r[0] == 'R' || r[0] == 'C' {
			i++ // the next record is the rename's source
			if i < len(recs) {
				set[f.Key(string(recs[i]))] = true
			}
		}
	}
	return set, nil
}

func nulSet(out []byte, f gate.Folding) map[string]bool {
	set := map[string]bool{}
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) > 0 {
			set[f.Key(string(p))] = true
		}
	}
	return set
}

func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := gitrun.Command(ctx, dir, nil, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
