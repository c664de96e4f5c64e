package hooks

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/gitrun"
	"github.com/leasegate/leasegate/workspace"
)

// GitConfig configures the git hooks.
type GitConfig struct {
	// Connect reaches the coordinator. Required.
	Connect ConnectFunc
	// Dir is where git runs the hook (the top of the worktree); empty
	// means the current directory.
	Dir string
	// Committer is the owner name whoever commits claims (LEASEGATE_AS,
	// CLAUDE_CODE_SESSION_ID). An owner whose root process is an ancestor
	// of the hook comes first (committerOf). Empty and no such owner means
	// nobody known: every lease of another live owner on a staged file
	// refuses the commit, and nothing is released after it.
	Committer string
}

// Committer names who commits: as (LEASEGATE_AS, which `leasegate run`
// sets for its worker), else the Claude Code session whose Bash tool runs
// git (CLAUDE_CODE_SESSION_ID), else nobody.
func Committer(as string, getenv func(string) string) string {
	if as != "" {
		return as
	}
	if id := getenv("CLAUDE_CODE_SESSION_ID"); id != "" {
		return ownerPrefix[ClaudeCode] + id
	}
	return ""
}

// Conflict is a staged file that another live owner holds.
type Conflict struct {
	Path     string        `json:"path"`
	Lease    gate.Lease    `json:"lease"`
	Liveness gate.Liveness `json:"liveness"`
}

// CommitRefusedError is the pre-commit guard's refusal.
type CommitRefusedError struct {
	Committer string
	Conflicts []Conflict
}

func (e *CommitRefusedError) Error() string {
	var b strings.Builder
	who := "the committer is unknown (set LEASEGATE_AS to commit files you hold)"
	if e.Committer != "" {
		who = "committing as " + e.Committer
	}
	fmt.Fprintf(&b, "leasegate: commit refused: %d staged file(s) are leased by another owner (%s):\n", len(e.Conflicts), who)
	for _, c := range e.Conflicts {
		fmt.Fprintf(&b, "  %s: leased by %s (%s lease %s since %s; %s)\n", gate.ShownPath(c.Path), c.Lease.Owner.Name, c.Lease.Kind, c.Lease.ID,
			c.Lease.AcquiredAt.UTC().Format("2006-01-02T15:04:05Z"), livenessNote(c.Liveness))
	}
	b.WriteString("Leave them out of the commit (git restore --staged FILE), or ask their holder to commit or release them; `leasegate status` shows who holds what.")
	return b.String()
}

func livenessNote(l gate.Liveness) string {
	if l.Status == "" {
		return "owner not registered"
	}
	if len(l.Evidence) == 0 {
		return string(l.Status)
	}
	return string(l.Status) + ": " + l.Evidence[0]
}

// PreCommit refuses a commit that includes a gated file leased by another
// owner who is not dead, with a *CommitRefusedError. It reads the staged
// files from the index git is committing (GIT_INDEX_FILE, which `commit
// -a` and `commit PATHS` point at a temporary index). A commit in a
// submodule is checked against the superproject's table, its files named
// from the superproject's root (sub/x.go). Any other error means the
// commit could not be checked; the caller refuses it too.
func PreCommit(ctx context.Context, cfg GitConfig) error {
	dir, err := gitDir(cfg.Dir)
	if err != nil {
		return err
	}
	ws, err := workspace.Find(dir)
	if err != nil {
		return err
	}
	staged, err := stagedFiles(ctx, dir)
	if err != nil {
		return err
	}
	if staged = gatedOnly(ws, fromRoot(ws, staged)); len(staged) == 0 {
		return nil
	}
	cl, err := cfg.Connect(ctx, ws, true)
	if err != nil {
		return fmt.Errorf("cannot check the commit against the leases: %w", err)
	}
	defer cl.Close()
	st, err := cl.Status(ctx)
	if err != nil {
		return fmt.Errorf("cannot check the commit against the leases: %w", err)
	}
	committer, err := committerOf(ctx, cl, cfg.Committer)
	if err != nil {
		return fmt.Errorf("cannot check the commit against the leases: %w", err)
	}
	if cs := conflicts(st, staged, committer, ws.Folding()); len(cs) > 0 {
		return &CommitRefusedError{Committer: committer, Conflicts: cs}
	}
	return nil
}

// conflicts pairs each staged path with a lease of another owner, not
// dead, that covers it, names compared under f: git prints a staged path
// as its index spells it, and on a volume that folds case docs/a.md is
// under a check-out of Docs/**. File leases are looked up by path; only
// sparse and full leases are matched one by one.
func conflicts(st leasegate.Status, staged []string, committer string, f gate.Folding) []Conflict {
	live := map[string]gate.Liveness{}
	for _, o := range st.Owners {
		live[o.Name] = o.Liveness
	}
	byPath := map[string][]gate.Lease{}
	var wide []gate.Lease
	for _, l := range st.Leases {
		if l.HeldBy(committer) || live[l.Owner.Name].Status == gate.Dead {
			continue
		}
		if l.Scope.Type != gate.ScopeFile {
			wide = append(wide, l)
			continue
		}
		for _, p := range l.Scope.Paths {
			byPath[f.Key(p)] = append(byPath[f.Key(p)], l)
		}
	}
	var out []Conflict
	for _, p := range staged {
		lit := gate.Literal(p) // a staged name is one file, not the glob it may spell
		if l, ok := covering(lit, byPath[f.Key(lit)], wide, f); ok {
			out = append(out, Conflict{Path: p, Lease: l, Liveness: live[l.Owner.Name]})
		}
	}
	return out
}

func covering(p string, exact, wide []gate.Lease, f gate.Folding) (gate.Lease, bool) {
	if len(exact) > 0 {
		return exact[0], true
	}
	for _, l := range wide {
		if f.Covers(l.Scope, p) {
			return l, true
		}
	}
	return gate.Lease{}, false
}

// PostCommit releases the committer's leases on the committed files that
// are clean now. Without a committer it does nothing.
func PostCommit(ctx context.Context, cfg GitConfig) ([]gate.Lease, error) {
	dir, err := gitDir(cfg.Dir)
	if err != nil {
		return nil, err
	}
	ws, err := workspace.Find(dir)
	if err != nil {
		return nil, err
	}
	// A commit that claims no one starts no coordinator: with none
	// running, no owner's session can be committing.
	cl, err := cfg.Connect(ctx, ws, cfg.Committer != "")
	if err != nil {
		if cfg.Committer == "" {
			return nil, nil
		}
		return nil, err
	}
	defer cl.Close()
	committer, err := committerOf(ctx, cl, cfg.Committer)
	if err != nil {
		return nil, err
	}
	if committer == "" {
		return nil, nil
	}
	return cl.ReleaseCommitted(ctx, committer)
}

// fromRoot makes paths, as git prints them in the checkout Find started
// in, relative to the workspace root: in a submodule whose superproject
// Find joined, they gain the submodule's directory before them.
func fromRoot(ws *workspace.Workspace, paths []string) []string {
	if ws.Submodule == "" {
		return paths
	}
	prefix, _ := ws.Rel(ws.Submodule)
	for i, p := range paths {
		paths[i] = path.Join(filepath.ToSlash(prefix), p)
	}
	return paths
}

func gitDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	return os.Getwd()
}

// stagedFiles lists what the commit adds, changes or deletes, both names of
// a rename, from the index in GIT_INDEX_FILE: the environment git gave the
// hook is kept as it is.
func stagedFiles(ctx context.Context, dir string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "git", "diff", "--cached", "--name-only", "-z", "--no-renames", "--diff-filter=ACMRD")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, gitrun.Failed([]string{"diff", "--cached"}, err, stderr.String())
	}
	var files []string
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) > 0 {
			files = append(files, string(f))
		}
	}
	return files, nil
}
