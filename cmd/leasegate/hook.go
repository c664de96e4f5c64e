package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/hooks"
	"github.com/leasegate/leasegate/internal/envname"
	"github.com/leasegate/leasegate/workspace"
)

// hookFlags are the flags of `leasegate hook`.
type hookFlags struct {
	common
	as          string
	timeout     time.Duration
	unreachable time.Duration
	logSet      bool
}

func (f *hookFlags) register(fs *flag.FlagSet) {
	f.common.register(fs, true)
	fs.StringVar(&f.as, "as", os.Getenv(envname.As), "owner name to act as (env "+envname.As+"; default: made from the agent's session id)")
	fs.DurationVar(&f.timeout, "timeout", envDuration(envname.HookTimeout, hooks.DefaultTimeout),
		"give up and deny after this long, the wait for the one retry included (env "+envname.HookTimeout+"); keep it below the agent's hook timeout")
	fs.DurationVar(&f.unreachable, "unreachable", envDuration(envname.HookUnreachable, hooks.DefaultUnreachable),
		"deny after the coordinator has not answered for this long (env "+envname.HookUnreachable+")")
}

// parse parses the flags of hook, install and uninstall and
// returns the positional arguments. LEASEGATE_NO_START=1 acts as
// --no-start.
func (f *hookFlags) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	pos, err := parseMixed(fs, args)
	if err != nil {
		return nil, err
	}
	fs.Visit(func(fl *flag.Flag) { f.logSet = f.logSet || fl.Name == "log-level" })
	f.logSet = f.logSet || os.Getenv(envname.LogLevel) != ""
	if v := os.Getenv(envname.NoStart); v == "1" || v == "true" {
		f.noStart = true
	}
	return pos, nil
}

// log is silent unless a log level was asked for: a hook's stderr is the
// reason an agent shows, and must hold nothing else.
func (f *hookFlags) log() hclog.Logger {
	if !f.logSet {
		return hclog.NewNullLogger()
	}
	return f.logger("leasegate")
}

// connect reaches the coordinator of the workspace a hook call names,
// starting it when asked to (unless --no-start). For an agent hook
// (health false) a coordinator counts as up when its socket accepts a
// connection: the hook's first request follows at once and tells the
// rest, so a health request would only add a round trip to every tool
// call; one that accepts but does not answer counts as unreachable after
// --unreachable, and the write is refused. The git hooks, whose requests
// have no such bound, ask for its health.
func (f *hookFlags) connect(log hclog.Logger, health bool) hooks.ConnectFunc {
	return func(ctx context.Context, ws *workspace.Workspace, start bool) (hooks.Coordinator, error) {
		cl, err := f.dial(ctx, ws, dialConfig{Start: start, Health: health, RetryMax: 1, Logger: log})
		if err != nil {
			return nil, err // not a typed nil in the interface
		}
		return cl, nil
	}
}

const hookTargets = "claude-code, codex, gemini, cursor, git-pre-commit or git-post-commit"

func cmdHook(ctx context.Context, args []string) error {
	var f hookFlags
	fs := flag.NewFlagSet("hook", flag.ContinueOnError)
	f.register(fs)
	pos, err := f.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("hook: want one of %s", hookTargets)
	}
	switch pos[0] {
	case "git-pre-commit":
		return f.preCommit(ctx)
	case "git-post-commit":
		return f.postCommit(ctx)
	}
	agent, err := hooks.ParseAgent(pos[0])
	if err != nil {
		return usagef("hook: %v; want one of %s", err, hookTargets)
	}
	log := f.log()
	h, err := hooks.New(hooks.Config{Connect: f.connect(log, false), Dir: f.dir, Owner: f.as, UnderSidecar: hooks.UnderSidecar(),
		Windows: f.windows, Timeout: f.timeout, Unreachable: f.unreachable, Logger: log})
	if err != nil {
		return usagef("hook: %v", err)
	}
	out := h.Run(ctx, agent, os.Stdin)
	_, _ = os.Stdout.WriteString(out.Stdout)
	_, _ = os.Stderr.WriteString(out.Stderr)
	if out.Code != exitOK {
		return &exitStatus{code: out.Code}
	}
	return nil
}

func (f *hookFlags) gitConfig() hooks.GitConfig {
	return hooks.GitConfig{Connect: f.connect(f.log(), true), Dir: f.dir, Committer: hooks.Committer(f.as, os.Getenv)}
}

// preCommit refuses (exit 1) a commit that includes a file another live
// owner holds, or that cannot be checked.
func (f *hookFlags) preCommit(ctx context.Context) error {
	err := hooks.PreCommit(ctx, f.gitConfig())
	if err == nil {
		return nil
	}
	if _, refused := err.(*hooks.CommitRefusedError); refused {
		fmt.Fprintln(os.Stderr, err)
	} else {
		fmt.Fprintf(os.Stderr, "leasegate: commit refused: %v\n", err)
	}
	return &exitStatus{code: exitError}
}

// postCommit releases the committer's leases on what it committed. git
// ignores a post-commit hook's status, so a failure is only a warning.
func (f *hookFlags) postCommit(ctx context.Context) error {
	if _, err := hooks.PostCommit(ctx, f.gitConfig()); err != nil {
		fmt.Fprintf(os.Stderr, "leasegate: could not release the committed files' leases: %v\n", err)
	}
	return nil
}

func cmdInstall(ctx context.Context, args []string) error { return install(ctx, "install", args) }

func cmdUninstall(ctx context.Context, args []string) error { return install(ctx, "uninstall", args) }

// install runs install or uninstall for one agent or git.
func install(ctx context.Context, name string, args []string) error {
	var f hookFlags
	var user, trust, shared, noMCP bool
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.BoolVar(&noMCP, "no-mcp", false, "hooks only: leave the agent's MCP configuration (.mcp.json, ...) alone")
	f.common.register(fs, false)
	fs.BoolVar(&user, "user", false, "the user's settings (~/.claude/settings.json, ...) instead of the workspace's")
	fs.BoolVar(&shared, "shared", false, "the workspace's shared settings file a team commits (.claude/settings.json), with `leasegate` looked up in PATH, "+
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
	lines, err := f.install(ctx, name, pos[0], target{user: user, shared: shared, noMCP: noMCP})
	for _, l := range lines {
		fmt.Println(l)
	}
	if err != nil || name != "install" || pos[0] != string(hooks.Codex) {
		return err
	}
	return f.codexTrust(ctx, user, trust)
}

func (f *hookFlags) install(ctx context.Context, name, agentName string, to target) ([]string, error) {
	exe, err := hookProgram(name, to.shared)
	if err != nil {
		return nil, err
	}
	if agentName == "git" {
		if to.shared {
			return nil, usagef("%s git: --shared is not supported (git hooks live in .git/hooks, never shared)", name)
		}
		if to.user {
			return nil, usagef("%s git: --user is not supported (git hooks belong to a repository)", name)
		}
		ws, err := f.workspace()
		if err != nil {
			return nil, err
		}
		if name == "install" {
			return hooks.InstallGit(ctx, ws.Root, exe)
		}
		return hooks.UninstallGit(ctx, ws.Root)
	}
	agent, err := hooks.ParseAgent(agentName)
	if err != nil {
		return nil, usagef("%s: %v (or git)", name, err)
	}
	base, err := f.settingsBase(to.user)
	if err != nil {
		return nil, err
	}
	path, note := settingsFile(agent, base, to)
	if name == "install" {
		lines, err := hooks.Install(agent, path, exe)
		if note != "" {
			lines = append(lines, note)
		}
		if err == nil {
			lines = append(lines, otherFileNote(agent, base, path, name, to)...)
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
