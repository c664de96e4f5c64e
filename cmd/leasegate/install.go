package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/leasegate/leasegate/hooks"
	"github.com/leasegate/leasegate/internal/envname"
	"github.com/leasegate/leasegate/workspace"
)

func cmdInstall(ctx context.Context, args []string) error { return install(ctx, "install", args) }

func cmdUninstall(ctx context.Context, args []string) error { return install(ctx, "uninstall", args) }

// install runs install or uninstall for one agent or git.
func install(ctx context.Context, name string, args []string) error {
	var f hookFlags
	var user, trust, shared, noMCP bool
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.BoolVar(&noMCP, "no-mcp", false, "hooks only: leave the agent's MCP configuration (.mcp.json, ...) alone")
	// Only --workspace of the flags most commands take: install prints
	// what it wrote as text, logs nothing and starts no coordinator, so
	// --json, --log-level and --no-start would be taken and ignored.
	fs.StringVar(&f.dir, "workspace", "", "workspace directory (default: the git checkout around the current directory)")
	fs.BoolVar(&user, "user", false, "the user's settings (~/.claude/settings.json, ...) instead of the workspace's")
	fs.BoolVar(&shared, "shared", false, "the workspace's shared settings file a team commits (.claude/settings.json), with leasegate looked up in PATH, "+
		"instead of the agent's local file (.claude/settings.local.json) with this binary's absolute path")
	if name == "install" {
		fs.BoolVar(&trust, "trust", false, "codex: also record in Codex's config that you trust this project and leasegate's hooks (Codex skips untrusted hooks)")
	}
	pos, err := f.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("%s: want one of claude-code, codex, gemini, cursor, git", name)
	}
	if trust && pos[0] != string(hooks.Codex) {
		return usagef("install %s: --trust is for codex only (the other agents run installed hooks as they are)", pos[0])
	}
	if noMCP && pos[0] == "git" {
		return usagef("%s git: --no-mcp is for agents (git has no MCP server to register)", name)
	}
	if shared && user {
		return usagef("%s: --shared is the workspace's shared file; --user the user's own: give one", name)
	}
	if trust {
		if err := codexAtHand(); err != nil {
			return err
		}
	}
	lines, err := f.install(ctx, name, pos[0], target{user: user, shared: shared, noMCP: noMCP})
	for _, l := range lines {
		fmt.Println(l)
	}
	switch {
	case err == nil && name == "install" && pos[0] == string(hooks.Gemini):
		return f.geminiActive(user)
	case err != nil || pos[0] != string(hooks.Codex):
		return err
	case name == "uninstall":
		return f.codexUntrust(ctx, user)
	}
	return f.codexTrust(ctx, user, trust)
}

// geminiActive says, after `install gemini`, what keeps Gemini CLI from
// running the hooks (an untrusted folder, hooks turned off), if anything.
func (f *hookFlags) geminiActive(user bool) error {
	ws, file, err := f.hooksFile(hooks.Gemini, user)
	if err != nil {
		return err
	}
	home, err := os.UserHomeDir()
	if err != nil {
		// The hooks are installed; only the check of what Gemini CLI
		// keeps in the home directory cannot be made.
		fmt.Printf("NOT CHECKED: whether Gemini CLI trusts this folder and runs hooks (it keeps that in ~/.gemini, and %v): run `leasegate doctor` with HOME set\n", err)
		return nil
	}
	for _, p := range hooks.GeminiProblems(ws.Root, file, home) {
		fmt.Println("NOT ACTIVE YET: " + p)
	}
	return nil
}

// codexUntrust removes, after `uninstall codex`, the trust entries
// `install codex --trust` wrote to Codex's config, saying which.
func (f *hookFlags) codexUntrust(ctx context.Context, user bool) error {
	ws, file, err := f.hooksFile(hooks.Codex, user)
	if err != nil {
		return err
	}
	did, err := hooks.UntrustCodex(ctx, envOr(envname.Codex, "codex"), ws.Root, file)
	for _, l := range did {
		fmt.Println(l)
	}
	if err != nil {
		return fmt.Errorf("uninstall codex: %w", err)
	}
	return nil
}

// installGit installs (or with name "uninstall" removes) the git hooks of
// the checkout; a directory in no checkout has none, which is said before
// this binary is judged fit to be named in hooks.
func (f *hookFlags) installGit(ctx context.Context, name string) ([]string, error) {
	ws, err := f.workspace()
	if err != nil {
		return nil, err
	}
	if ws.GitDir == "" {
		return nil, usagef("%s git: %s: there are no git hooks to %s there", name, notCheckout(ws.Root), name)
	}
	exe, err := hookProgram(name, false)
	if err != nil {
		return nil, err
	}
	if name == "install" {
		return hooks.InstallGitTree(ctx, ws, exe)
	}
	return hooks.UninstallGitTree(ctx, ws)
}

// hooksFile is the workspace and the hooks file of agent a that install
// and uninstall write: the project's, or with user the user's.
func (f *hookFlags) hooksFile(a hooks.Agent, user bool) (*workspace.Workspace, string, error) {
	ws, err := f.workspace()
	if err != nil {
		return nil, "", err
	}
	base, err := f.settingsBase(user)
	if err != nil {
		return nil, "", err
	}
	if user {
		return ws, hooks.UserSettingsPath(a, base), nil
	}
	return ws, hooks.SettingsPath(a, base), nil
}

func (f *hookFlags) install(ctx context.Context, name, agentName string, to target) ([]string, error) {
	if agentName == "git" && to.shared {
		return nil, usagef("%s git: --shared is not supported (git hooks live in .git/hooks, never shared)", name)
	}
	if agentName == "git" && to.user {
		return nil, usagef("%s git: --user is not supported (git hooks belong to a repository)", name)
	}
	if agentName == "git" {
		return f.installGit(ctx, name)
	}
	// Refused before the program is looked up, which warns when --shared
	// finds no leasegate in PATH.
	exe, err := hookProgram(name, to.shared)
	if err != nil {
		return nil, err
	}

	agent, err := hooks.ParseAgent(agentName)
	if err != nil {
		return nil, usagef("%s: %v (or git)", name, err)
	}
	base, err := f.settingsBase(to.user)
	if err != nil {
		return nil, err
	}
	if name == "install" && !to.user {
		if err := gatedHere(base); err != nil {
			return nil, err
		}
	}
	path, note := settingsFile(agent, base, to)
	if name == "install" {
		// The MCP file is checked before the hooks are written, so that a
		// file install cannot edit leaves nothing half-installed.
		if !to.noMCP {
			if err := hooks.CheckMCP(agent, hooks.MCPPath(agent, base, to.user), exe); err != nil {
				return nil, err
			}
		}
		lines, err := hooks.Install(agent, path, exe)
		if note != "" {
			lines = append(lines, note)
		}
		if err == nil {
			lines = append(lines, otherFileNote(agent, base, path, name, to)...)
			if local, ok := hooks.LocalSettingsPath(agent, base); ok && path == local {
				lines = append(lines, unignoredNote(ctx, base, path)...)
			}
		}
		if err != nil || to.noMCP {
			return lines, err
		}
		more, err := mcpInstall(name, agent, base, to, exe)
		return append(lines, more...), err
	}
	// The MCP entry goes first: where it shares the hooks' file (Gemini)
	// or directory (Codex), the hooks' uninstall then gives back the
	// file's original bytes and the directories install made.
	var lines []string
	if !to.noMCP {
		if lines, err = mcpInstall(name, agent, base, to, exe); err != nil {
			return lines, err
		}
	}
	more, err := hooks.Uninstall(agent, path)
	lines = append(lines, more...)
	if err == nil {
		lines = append(lines, otherFileNote(agent, base, path, name, to)...)
	}
	return lines, err
}

// mcpInstall registers leasegate's MCP server with the agent (install) or
// removes it (uninstall): the project's MCP file, or the user's with
// --user.
func mcpInstall(name string, agent hooks.Agent, base string, to target, exe string) ([]string, error) {
	path := hooks.MCPPath(agent, base, to.user)
	if name == "install" {
		return hooks.InstallMCP(agent, path, exe)
	}
	return hooks.UninstallMCP(agent, path)
}

// gatedHere refuses a project install in root when the agent's hooks
// and MCP server, which find their workspace from the agent's directory
// alone, would not take root for one: outside a git checkout only a
// leasegate.json makes a directory a workspace, and without it the hooks
// let every write through.
func gatedHere(root string) error {
	ws, err := workspace.Find(root)
	if err != nil {
		return err
	}
	if ws.GitDir != "" {
		return nil
	}
	if _, err := os.Stat(filepath.Join(ws.Root, workspace.ConfigFile)); err == nil {
		return nil
	}
	return usagef("install: %s and has no %s: the agent's hooks would gate nothing there "+
		"(and its MCP server would refuse to start); put a %s there (`{}` will do) to make it a workspace, then install",
		notCheckout(ws.Root), workspace.ConfigFile, workspace.ConfigFile)
}

// settingsBase is the home directory for --user, else the workspace root.
func (f *hookFlags) settingsBase(user bool) (string, error) {
	if user {
		return os.UserHomeDir()
	}
	ws, err := f.workspace()
	if err != nil {
		return "", err
	}
	return ws.Root, nil
}

// codexAtHand refuses `install codex --trust` before anything is
// written when there is no codex program to record the trust through:
// the hooks would be installed and left untrusted, which Codex skips.
func codexAtHand() error {
	codex := envOr(envname.Codex, "codex")
	if _, err := exec.LookPath(codex); err != nil {
		return fmt.Errorf("install codex --trust: nothing installed: Codex records trust itself, and %w; install Codex, name it with %s, or install without --trust and trust the hooks in codex", err, envname.Codex)
	}
	return nil
}

// codexTrust says, after `install codex`, whether Codex will run the
// hooks and what remains if not; with trust it first records the user's
// trust through Codex, saying what it wrote.
func (f *hookFlags) codexTrust(ctx context.Context, user, trust bool) error {
	ws, file, err := f.hooksFile(hooks.Codex, user)
	if err != nil {
		return err
	}
	want := hooks.InstalledCount(hooks.Codex)
	codex := envOr(envname.Codex, "codex")
	var t hooks.CodexTrust
	if trust {
		var did []string
		did, t, err = hooks.TrustCodex(ctx, codex, ws.Root, file)
		for _, l := range did {
			fmt.Println(l)
		}
		if err != nil {
			return fmt.Errorf("install codex --trust: the hooks are installed, their trust is not recorded: %w", err)
		}
	} else if t, err = hooks.CodexTrustOf(ctx, codex, ws.Root, file); err != nil {
		fmt.Printf("NOT VERIFIED: could not ask Codex whether it runs these hooks (%v). Codex runs a project's hooks only once the project and each hook are trusted: start `codex` in %s, trust the folder, and trust leasegate's hooks when Codex says hooks need review; then `leasegate doctor`\n", err, ws.Root)
		return nil
	}
	if p := t.Problem(want); p != "" {
		fmt.Println("NOT ACTIVE YET: " + p)
		return nil
	}
	fmt.Println(t.Verdict())
	return nil
}
