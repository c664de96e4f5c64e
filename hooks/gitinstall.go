package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/leasegate/leasegate/internal/gitrun"
	"github.com/leasegate/leasegate/workspace"
)

// gitHook is one git hook install writes: a small sh wrapper that runs
// `leasegate hook NAME` and then the hook it replaced, if any.
type gitHook struct {
	name string // pre-commit
	run  string // git-pre-commit
	gate bool   // leasegate's failure fails the hook (and the commit)
}

// gitHooks are the hooks install writes. git merge makes its commit
// without pre-commit and post-commit: pre-merge-commit guards it (git 2.24
// and later run it) and post-merge releases after it (a fast-forward
// too), with the same entry points.
var gitHooks = []gitHook{
	{name: "pre-commit", run: "git-pre-commit", gate: true},
	{name: "post-commit", run: "git-post-commit"},
	{name: "pre-merge-commit", run: "git-pre-commit", gate: true},
	{name: "post-merge", run: "git-post-commit"},
}

const (
	// ChainedSuffix is added to a hook that install moves aside; the
	// wrapper runs it after leasegate, and uninstall moves it back.
	ChainedSuffix = ".leasegate-chained"
	// gitMarker is the line that tells install and uninstall a wrapper is
	// leasegate's.
	gitMarker = "# leasegate: installed by `leasegate install git`; `leasegate uninstall git` removes it and restores the hook it chains to."
	// createdMarker sits in a hooks directory that install created, so
	// uninstall removes the directory too.
	createdMarker = ".leasegate-created"
)

// wrapper is the sh script of h. leasegate's stdin is /dev/null so the
// chained hook gets git's stdin untouched; a chained hook that is not
// executable was ignored by git and stays ignored.
func (h gitHook) wrapper(exe string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "#!/bin/sh\n%s\n", gitMarker)
	fmt.Fprintf(&b, "%s hook %s </dev/null", shellQuote(exe), h.run)
	if h.gate {
		b.WriteString(" || exit $?")
	}
	fmt.Fprintf(&b, "\nchained=\"$0%s\"\nif [ -x \"$chained\" ]; then exec \"$chained\" \"$@\"; fi\n", ChainedSuffix)
	return b.Bytes()
}

// GitHooksDir is the directory git runs dir's hooks from: core.hooksPath
// when set, else the repository's hooks directory (shared by worktrees).
func GitHooksDir(ctx context.Context, dir string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", "rev-parse", "--git-path", "hooks")
	cmd.Dir, cmd.Env = dir, gitEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", gitrun.Failed([]string{"rev-parse", "--git-path", "hooks"}, err, stderr.String())
	}
	p := strings.TrimSpace(string(out))
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p), nil
}

// notSharedHooksPath refuses a core.hooksPath that comes from the user's
// or the system's git config: every repository on the machine without a
// hooks path of its own runs the hooks there, so leasegate's would gate
// commits in all of them and start a coordinator in each.
func notSharedHooksPath(ctx context.Context, dir, hd string) error {
	cmd := exec.CommandContext(ctx, "git", "config", "--show-scope", "--show-origin", "--get", "core.hooksPath")
	cmd.Dir, cmd.Env = dir, gitEnv()
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		return nil // not set
	}
	if err != nil {
		return fmt.Errorf("git config --get core.hooksPath: %v", err)
	}
	scope, rest, _ := strings.Cut(strings.TrimSpace(string(out)), "\t")
	origin, _, _ := strings.Cut(rest, "\t")
	if scope != "global" && scope != "system" {
		return nil
	}
	return fmt.Errorf("core.hooksPath is set in your %s git config (%s) to %s, which every repository without a hooks path "+
		"of its own uses: leasegate's hooks there would gate commits in all of them. Give this repository its own first "+
		"(`git config core.hooksPath \"$(git rev-parse --git-common-dir)/hooks\"`, chaining your shared hooks from there if you "+
		"need them), then install", scope, strings.TrimPrefix(origin, "file:"), hd)
}

// InstallGit installs the pre-commit guard and the post-commit release in
// dir's repository. A hook already there is moved to NAME.leasegate-chained
// and still runs, after leasegate, with the same arguments and stdin. The
// same entries, alone, go to the hooks-on directory (hookson.go) for the
// agents that run git with the repository's hooks off.
// Running it again changes nothing but the binary's path. It returns what
// it did, one line each.
func InstallGit(ctx context.Context, dir, exe string) ([]string, error) {
	hd, err := GitHooksDir(ctx, dir)
	if err != nil {
		return nil, err
	}
	if err := notSharedHooksPath(ctx, dir, hd); err != nil {
		return nil, err
	}
	var did []string
	if _, err := os.Stat(hd); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(hd, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(hd, createdMarker), nil, 0o644); err != nil {
			return nil, err
		}
		did = append(did, "created "+hd)
	}
	for _, h := range gitHooks {
		line, err := installGitHook(filepath.Join(hd, h.name), h.wrapper(exe))
		if err != nil {
			return did, err
		}
		did = append(did, line)
	}
	lines, err := installHooksOn(ctx, dir, exe)
	did = append(did, lines...)
	if err != nil {
		return did, err
	}
	if note := workingTreeNote(ctx, dir, hd); note != "" {
		did = append(did, note)
	}
	return did, nil
}

// workingTreeNote says when the hooks directory hd lies in the working
// tree of dir's repository (a core.hooksPath such as husky's .husky, often
// committed with it): git status then shows the hooks install wrote there,
// which name this binary's absolute path, and a commit of them would hand
// that path, and leasegate's guard, to every clone. It is "" when git
// shows nothing there.
func workingTreeNote(ctx context.Context, dir, hd string) string {
	out, err := gitrun.Command(ctx, dir, nil, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", hd).Output()
	if err != nil {
		return ""
	}
	var names []string
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) > 3 && rec[2] == ' ' {
			names = append(names, string(rec[3:]))
		}
	}
	if len(names) == 0 {
		return ""
	}
	rel, err := filepath.Rel(dir, hd)
	if err != nil {
		rel = hd
	}
	return fmt.Sprintf("note: the hooks directory %s (core.hooksPath) is in the working tree, and git status shows what install "+
		"wrote there (%s): those files name this binary's absolute path, so keep them out of commits. To gate the commits of "+
		"every clone instead, put `leasegate hook git-pre-commit </dev/null || exit $?` first in the pre-commit hook you commit "+
		"and `leasegate hook git-post-commit </dev/null` in post-commit (leasegate from PATH), then run `leasegate uninstall git`",
		filepath.ToSlash(rel), strings.Join(names, ", "))
}

// InstallGitTree installs the git hooks (InstallGit) in the workspace's
// repository and in every submodule checked out in its tree: git runs a
// submodule's commit hooks from the submodule's own hooks directory
// (.git/modules/NAME/hooks, or its core.hooksPath), and the guard there
// checks its files against the superproject's table.
func InstallGitTree(ctx context.Context, ws *workspace.Workspace, exe string) ([]string, error) {
	return forGitTree(ws, func(dir string) ([]string, error) { return InstallGit(ctx, dir, exe) })
}

// UninstallGitTree is UninstallGit in every repository InstallGitTree
// installs in.
func UninstallGitTree(ctx context.Context, ws *workspace.Workspace) ([]string, error) {
	return forGitTree(ws, func(dir string) ([]string, error) { return UninstallGit(ctx, dir) })
}

// forGitTree runs do in the workspace's root and in each submodule's,
// collecting what it did; it stops at the first error.
func forGitTree(ws *workspace.Workspace, do func(dir string) ([]string, error)) ([]string, error) {
	subs, err := ws.Submodules()
	if err != nil {
		return nil, err
	}
	var did []string
	for _, dir := range append([]string{ws.Root}, subs...) {
		lines, err := do(dir)
		did = append(did, lines...)
		if err != nil && dir != ws.Root {
			err = fmt.Errorf("submodule %s: %w", dir, err)
		}
		if err != nil {
			return did, err
		}
	}
	return did, nil
}

func installGitHook(path string, want []byte) (string, error) {
	chained := path + ChainedSuffix
	cur, err := os.ReadFile(path)
	_, lerr := os.Lstat(path)
	switch {
	case errors.Is(lerr, fs.ErrNotExist):
		return "installed " + path, writeFileAtomic(path, want, 0o755)
	case err == nil && isOurWrapper(cur):
		if bytes.Equal(cur, want) {
			return "already installed: " + path, nil
		}
		return "updated " + path, writeFileAtomic(path, want, 0o755)
	}
	if _, err := os.Lstat(chained); err == nil {
		return "", fmt.Errorf("%s is not leasegate's and %s exists too: move one of them away first", path, chained)
	}
	if err := os.Rename(path, chained); err != nil {
		return "", err
	}
	if err := writeFileAtomic(path, want, 0o755); err != nil {
		return "", errors.Join(err, os.Rename(chained, path))
	}
	return fmt.Sprintf("installed %s; the hook that was there is now %s and runs after leasegate", path, chained), nil
}

func isOurWrapper(data []byte) bool { return bytes.Contains(data, []byte(gitMarker)) }

// UninstallGit removes leasegate's git hooks and moves the hooks they
// chained back, as they were (content and mode). A hook that is not
// leasegate's is left alone.
func UninstallGit(ctx context.Context, dir string) ([]string, error) {
	hd, err := GitHooksDir(ctx, dir)
	if err != nil {
		return nil, err
	}
	var did []string
	for _, h := range gitHooks {
		line, err := uninstallGitHook(filepath.Join(hd, h.name))
		if err != nil {
			return did, err
		}
		did = append(did, line)
	}
	lines, err := uninstallHooksOn(ctx, dir)
	did = append(did, lines...)
	if err != nil {
		return did, err
	}
	if _, err := os.Stat(filepath.Join(hd, createdMarker)); err == nil {
		if err := os.Remove(filepath.Join(hd, createdMarker)); err != nil {
			return did, err
		}
		if os.Remove(hd) == nil {
			did = append(did, "removed "+hd)
		}
	}
	return did, nil
}

func uninstallGitHook(path string) (string, error) {
	chained := path + ChainedSuffix
	cur, err := os.ReadFile(path)
	_, lerr := os.Lstat(path)
	ours := err == nil && isOurWrapper(cur)
	if lerr == nil && !ours {
		return "left " + path + " alone: it is not leasegate's", nil
	}
	if ours {
		if err := os.Remove(path); err != nil {
			return "", err
		}
	}
	if _, err := os.Lstat(chained); err == nil {
		return "restored " + path + " from " + chained, os.Rename(chained, path)
	}
	if ours {
		return "removed " + path, nil
	}
	return "no leasegate hook at " + path, nil
}

// GitInstalled lists the git hooks of dir's repository that run
// leasegate.
func GitInstalled(ctx context.Context, dir string) ([]string, error) {
	hd, err := GitHooksDir(ctx, dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, h := range gitHooks {
		if data, err := os.ReadFile(filepath.Join(hd, h.name)); err == nil && isOurWrapper(data) {
			names = append(names, h.name)
		}
	}
	return names, nil
}

// GitMissingInSubmodules lists the submodules checked out in the
// workspace's tree whose repository lacks one of leasegate's git hooks:
// one added or cloned after `install git` commits unguarded, and keeps
// its committed files leased, until install runs again.
func GitMissingInSubmodules(ctx context.Context, ws *workspace.Workspace) ([]string, error) {
	subs, err := ws.Submodules()
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, dir := range subs {
		names, err := GitInstalled(ctx, dir)
		if err != nil {
			return nil, fmt.Errorf("submodule %s: %w", dir, err)
		}
		if len(names) < len(gitHooks) {
			missing = append(missing, dir)
		}
	}
	return missing, nil
}
