package hooks

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/leasegate/leasegate/workspace"
)

// Gemini CLI runs its model's shell commands with git's hooks turned off:
// it appends core.hooksPath="" to their environment (GIT_CONFIG_COUNT,
// applied over every config file), so leasegate's pre-commit guard would
// not run for a commit its model makes. Git applies GIT_CONFIG_PARAMETERS
// (what `git -c` sets) after GIT_CONFIG_COUNT, so a command that first
// exports a core.hooksPath there has git run hooks again. The BeforeTool
// hook rewrites such a command (Gemini CLI 0.61 runs the tool_input its
// BeforeTool hook returns) to point core.hooksPath at a directory that
// `install git` fills with leasegate's own entries alone: the guard
// refuses the commit before it is made, as it does for Claude Code and
// Codex, and the post-commit release runs. The repository's other hooks,
// which Gemini CLI means to keep off, stay off: nothing there comes from
// the repository, and each entry runs only in the repository it was
// installed for and its submodules, so a commit the same command makes in
// another repository runs no leasegate and starts no coordinator there.

// hooksOnMarker is the line that tells install and uninstall a script in
// the hooks-on directory is leasegate's.
const hooksOnMarker = "# leasegate: installed by `leasegate install git` for agents that run git with the repository's hooks off (Gemini CLI); `leasegate uninstall git` removes it."

// hooksOnDirName is the hooks-on directory's name, inside the directory
// named workspace.StateDirName in a repository's git common dir.
const hooksOnDirName = "git-hooks"

// hooksOnDir is the hooks-on directory of the repository whose git common
// dir is commonDir. In the main worktree it lies in the state directory,
// which workers under `leasegate run` may not write.
func hooksOnDir(commonDir string) string {
	return filepath.Join(commonDir, workspace.StateDirName, hooksOnDirName)
}

// hooksOnScript is h's entry in the hooks-on directory: leasegate's hook
// alone, none chained, in the repository whose common dir holds the
// directory (two levels up) or one of its submodules (below its modules/).
// Where it cannot tell the repository a gating entry fails and refuses.
func (h gitHook) hooksOnScript(exe string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "#!/bin/sh\n%s\n", hooksOnMarker)
	b.WriteString("here=$(cd \"$(dirname \"$0\")/../..\" && pwd -P) || exit 1\n")
	b.WriteString("common=$(cd \"$(git rev-parse --git-common-dir)\" && pwd -P) || exit 1\n")
	b.WriteString("case $common in\n")
	fmt.Fprintf(&b, "\"$here\" | \"$here\"/modules/*) exec %s hook %s </dev/null ;;\nesac\n", shellQuote(exe), h.run)
	return b.Bytes()
}

// gitCommonDir is the git dir shared by the worktrees of dir's repository.
func gitCommonDir(ctx context.Context, dir string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", "rev-parse", "--git-common-dir")
	cmd.Dir, cmd.Env = dir, gitEnv()
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git rev-parse --git-common-dir in %s: %w", dir, err)
	}
	p := strings.TrimSpace(string(out))
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p), nil
}

// installHooksOn writes the hooks-on directory of dir's repository.
func installHooksOn(ctx context.Context, dir, exe string) ([]string, error) {
	common, err := gitCommonDir(ctx, dir)
	if err != nil {
		return nil, err
	}
	hd := hooksOnDir(common)
	if err := os.MkdirAll(hd, 0o700); err != nil {
		return nil, err
	}
	changed := false
	for _, h := range gitHooks {
		path, want := filepath.Join(hd, h.name), h.hooksOnScript(exe)
		if cur, err := os.ReadFile(path); err == nil && bytes.Equal(cur, want) {
			continue
		}
		if err := writeFileAtomic(path, want, 0o755); err != nil {
			return nil, err
		}
		changed = true
	}
	if !changed {
		return []string{"already installed: " + hd}, nil
	}
	return []string{"installed " + hd + " (leasegate's hooks alone, for agents that run git with the repository's hooks off: Gemini CLI)"}, nil
}

// uninstallHooksOn removes leasegate's entries from the hooks-on directory
// of dir's repository, and the directory once it is empty.
func uninstallHooksOn(ctx context.Context, dir string) ([]string, error) {
	common, err := gitCommonDir(ctx, dir)
	if err != nil {
		return nil, err
	}
	hd := hooksOnDir(common)
	removed := false
	for _, h := range gitHooks {
		path := filepath.Join(hd, h.name)
		if data, err := os.ReadFile(path); err != nil || !bytes.Contains(data, []byte(hooksOnMarker)) {
			continue
		}
		if err := os.Remove(path); err != nil {
			return nil, err
		}
		removed = true
	}
	if !removed {
		return nil, nil
	}
	if err := os.Remove(hd); err != nil {
		return []string{"removed leasegate's hooks from " + hd + ", which holds other files"}, nil
	}
	_ = os.Remove(filepath.Dir(hd)) // only when empty: a submodule's, or a state directory no coordinator used yet
	return []string{"removed " + hd}, nil
}

// mayCommit says whether a shell command may run a git command that runs
// the commit hooks: it names commit, merge or pull. A command that commits
// without naming them (a script, an alias) is not rewritten; the AfterTool
// hook reports what it committed. Other commands are left as the model
// wrote them, so Gemini CLI's own rules (a command it allows without
// asking, or the user's allow list) see them unchanged.
var mayCommit = regexp.MustCompile(`\b(commit|merge|pull)\b`)

// withHooksOn returns the shell command with git's hooks turned on for it,
// pointed at the hooks-on directory of the workspace's repository: by
// `git -c` where each git that may commit heads its command (hooksOnGit),
// else by a first line that exports it (hooksOnLine); or ""
// to leave it as it is: it cannot commit by its words, `install git` did
// not write the directory (leasegate's guard is not installed there), or
// the platform's shell has no rewrite (hooksOnLine).
func withHooksOn(ws *workspace.Workspace, command string) string {
	if ws.CommonDir == "" || !mayCommit.MatchString(command) {
		return ""
	}
	hd := hooksOnDir(ws.CommonDir)
	data, err := os.ReadFile(filepath.Join(hd, "pre-commit"))
	if err != nil || !bytes.Contains(data, []byte(hooksOnMarker)) {
		return ""
	}
	line := hooksOnLine(hd)
	if line == "" || strings.HasPrefix(command, line+"\n") || strings.Contains(command, shellQuote("core.hooksPath="+hd)) {
		return ""
	}
	if on, ok := hooksOnGit(hd, command); ok {
		return on
	}
	return line + "\n" + command
}

// hooksOnMissing is what doctor says of Gemini CLI where the workspace's
// repository has leasegate's guard but not the hooks-on directory (an
// `install git` from before it existed): Gemini CLI's commits then go
// unguarded, and are only reported after they are made. It is "" where
// nothing is missing, or where no shell command is rewritten anyway.
func hooksOnMissing(ctx context.Context, root string) string {
	if hooksOnLine("dir") == "" {
		return ""
	}
	if names, err := GitInstalled(ctx, root); err != nil || len(names) == 0 {
		return ""
	}
	common, err := gitCommonDir(ctx, root)
	if err != nil {
		return ""
	}
	hd := hooksOnDir(common)
	if data, err := os.ReadFile(filepath.Join(hd, "pre-commit")); err == nil && bytes.Contains(data, []byte(hooksOnMarker)) {
		return ""
	}
	return fmt.Sprintf("Gemini CLI runs git with the repository's hooks off, and %s, from which leasegate gives its shell commands the commit guard back, "+
		"is missing: a commit of a file another owner holds is made, and only reported after it; run `leasegate install git` again", hd)
}
