package hooks

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/workspace"
)

// A shell command's commits are checked after the command as the git
// hooks check them before and after a commit, because an agent may run its
// shell commands with git's hooks turned off: Gemini CLI sets
// core.hooksPath to "" in their environment (GIT_CONFIG_COUNT, which git
// applies over the repository's config), so neither the pre-commit guard
// nor the post-commit release runs for a commit its model makes unless
// the BeforeTool hook turned leasegate's back on (hookson.go), which it
// does not for a commit the command does not name, one made with
// --no-verify, or on Windows. After such a command the session's leases
// on the committed, now clean files are released, and a commit that
// includes a file another owner holds, which the guard would have
// refused, is told to the model and reported. Where the hooks did run,
// the release finds nothing left to release and the guard let no such
// commit through.

// commitCheckTimeout bounds the release and the check after a shell
// command that committed: each runs git, and the agent waits for the hook.
const commitCheckTimeout = 10 * time.Second

// headOf returns the commit HEAD names in the repository at dir, or ""
// when it names none (no commit yet, no repository).
func headOf(ctx context.Context, dir string) string {
	cmd := exec.CommandContext(ctx, "git", "rev-parse", "-q", "--verify", "HEAD")
	cmd.Dir, cmd.Env = dir, gitEnv()
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// commitsSince returns the commits `git commit` made in the repository at
// dir since HEAD was before, newest first, from HEAD's reflog: a checkout,
// reset, merge or pull that moved HEAD meanwhile made none. Where the
// reflog's last entries do not reach before (more of them since, or no
// reflog kept) it returns none: older commits are not the command's.
func commitsSince(ctx context.Context, dir, before string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "git", "reflog", "show", "-z", "-n", "64", "--format=%H %gs", "HEAD")
	cmd.Dir, cmd.Env = dir, gitEnv()
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git reflog: %w", err)
	}
	var commits []string
	for _, rec := range strings.Split(string(out), "\x00") {
		sha, subject, _ := strings.Cut(rec, " ")
		if sha == before {
			return commits, nil
		}
		if strings.HasPrefix(subject, "commit") {
			commits = append(commits, sha)
		}
	}
	return nil, nil
}

// commitFiles lists the files a commit adds, changes or deletes against
// its first parent, both names of a rename.
func commitFiles(ctx context.Context, dir, commit string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "git", "diff", "--name-only", "-z", "--no-renames", "--diff-filter=ACMRD", commit+"~1", commit)
	cmd.Dir, cmd.Env = dir, gitEnv()
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git diff %s: %w", commit, err)
	}
	var files []string
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) > 0 {
			files = append(files, string(f))
		}
	}
	return files, nil
}

// shellCommitted releases name's leases on what the shell command
// committed since HEAD was before, and tells the model which committed
// files another live owner holds.
func (h *Handler) shellCommitted(ctx context.Context, ws *workspace.Workspace, name, before string) Decision {
	ctx, cancel := context.WithTimeout(ctx, commitCheckTimeout)
	defer cancel()
	commits, err := commitsSince(ctx, ws.Root, before)
	if err != nil || len(commits) == 0 {
		return Decision{}
	}
	cl, err := h.cfg.Connect(ctx, ws, false)
	if err != nil {
		return Decision{} // no coordinator running: nobody holds anything
	}
	defer cl.Close()
	if _, err := cl.ReleaseCommitted(ctx, name); err != nil {
		h.log.Debug("cannot release the committed files", "error", err)
	}
	st, err := cl.Status(ctx)
	if err != nil {
		return warn("leasegate: cannot check the shell command's commits against the leases: " + err.Error())
	}
	var hits []string
	for _, c := range commits {
		files, err := commitFiles(ctx, ws.Root, c)
		if err != nil {
			h.log.Debug("cannot list a commit's files", "commit", c, "error", err)
			continue
		}
		for _, cf := range conflicts(st, gatedOnly(ws, files), name, ws.Folding()) {
			if err := cl.ReportUngated(ctx, leasegate.UngatedWrite{Path: cf.Path, Op: "commit", Reporter: name}); err != nil {
				h.log.Debug("cannot report a commit of a held file", "path", cf.Path, "error", err)
			}
			hits = append(hits, fmt.Sprintf("%s (leased by %s, in commit %.12s)", cf.Path, cf.Lease.Owner.Name, c))
		}
	}
	if len(hits) == 0 {
		return Decision{}
	}
	return Decision{Context: fmt.Sprintf("leasegate: the shell command committed files that other owners hold, which leasegate's git guard refuses, but git's hooks did not run: %s. This was reported to the operator. Do not push the commit and do not change these files again; tell the user, who decides whether to undo it.",
		strings.Join(hits, ", "))}
}
