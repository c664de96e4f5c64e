package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/hooks"
	"github.com/leasegate/leasegate/workspace"
)

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
		return misconfigured(fs, args, err)
	}
	if len(pos) != 1 {
		return usagef("hook: want one of %s", hookTargets)
	}
	if f.jsonOut {
		return misconfigured(fs, args, usagef("hook %s: --json does not apply: an agent hook always answers in its agent's JSON, a git hook in text", pos[0]))
	}
	switch pos[0] {
	case "git-pre-commit", "git-post-commit":
		if err := gitHookTakes(fs, pos[0]); err != nil {
			return err
		}
		if pos[0] == "git-pre-commit" {
			return f.preCommit(ctx)
		}
		return f.postCommit(ctx)
	}
	agent, err := hooks.ParseAgent(pos[0])
	if err != nil {
		return usagef("hook: unknown agent %q: want one of %s", pos[0], hookTargets)
	}
	hooks.EndWithCaller()
	if hooks.InheritAgentEnv(agent) {
		// The flags' defaults come from the environment: read them again
		// with the variables the agent withheld (set now, so once).
		return cmdHook(ctx, args)
	}
	log := f.log()
	h, err := hooks.New(hooks.Config{Connect: f.connect(log, false), Dir: f.dir, Owner: f.as, UnderSidecar: hooks.UnderSidecar(),
		Windows: f.windows, Timeout: f.timeout, Unreachable: f.unreachable, Logger: log})
	if err != nil {
		return misconfigured(fs, args, usagef("hook: %v", err))
	}
	return printAnswer(h.Run(ctx, agent, os.Stdin))
}

// printAnswer prints an agent hook's answer and exits with its status.
func printAnswer(out hooks.Output) error {
	_, _ = os.Stdout.WriteString(out.Stdout)
	_, _ = os.Stderr.WriteString(out.Stderr)
	if out.Code != exitOK {
		return &exitStatus{code: out.Code}
	}
	return nil
}

// misconfigured answers an agent hook call whose flags or environment
// were refused (err) as the agent reads a refusal: its JSON and the cause
// on stderr, exit 2, so the agent shows why every call is refused. A
// git hook, or a call that names no agent, gets err as a usage error.
func misconfigured(fs *flag.FlagSet, args []string, err error) error {
	if agent, ok := agentArg(fs, args); ok {
		return printAnswer(hooks.RunMisconfigured(agent, os.Stdin, err))
	}
	return err
}

// agentArg finds the agent a hook call names among args that fs may not
// have parsed: the first argument that is neither a flag nor a flag's
// value (`--as codex claude-code` names claude-code).
func agentArg(fs *flag.FlagSet, args []string) (hooks.Agent, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			continue
		}
		if strings.HasPrefix(a, "-") {
			// A flag given as --name value, not --name=value, takes the
			// next argument unless it is a boolean one.
			if fl := fs.Lookup(strings.TrimLeft(a, "-")); fl != nil && !isBoolFlag(fl) {
				i++
			}
			continue
		}
		agent, err := hooks.ParseAgent(a)
		return agent, err == nil
	}
	return "", false
}

func isBoolFlag(fl *flag.Flag) bool {
	b, ok := fl.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// gitHookFlags are the flags a git hook takes. The others are the agent
// hooks': a git hook waits for no retry (the guard refuses a commit at
// once) and answers git in text, not an agent in JSON.
var gitHookFlags = map[string]bool{"as": true, "workspace": true, "log-level": true, "no-start": true}

// gitHookTakes refuses a flag given to git hook target that only the agent
// hooks use: it was taken and ignored.
func gitHookTakes(fs *flag.FlagSet, target string) error {
	var err error
	fs.Visit(func(fl *flag.Flag) {
		if err == nil && !gitHookFlags[fl.Name] {
			err = usagef("hook %s: --%s is for the agent hooks; a git hook takes --as, --workspace, --log-level and --no-start", target, fl.Name)
		}
	})
	return err
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
