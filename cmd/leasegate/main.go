// Command leasegate is a transparent write-gating sidecar with liveness
// reclaim: it wraps coding agents so that every file mutation they make in
// a workspace passes a lease gate first. See the README for the commands.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/leasegate/leasegate/intercept/fuse"
	"github.com/leasegate/leasegate/intercept/seccomp"
	"github.com/leasegate/leasegate/intercept/spawn"
)

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string) error
	// subcommand: the command's first argument names what it does
	// (`ledger check`); global flags go after it.
	subcommand bool
}

func commands() []command {
	return []command{
		{"run", "wrap a worker: gate every mutation it and its children make", cmdRun, false},
		{"serve", "run the workspace coordinator (started automatically when needed)", cmdServe, false},
		{"status", "owners, leases, contention and open blockers", answersAtOnce("status", cmdStatus), false},
		{"blockers", "list blocker reports", answersAtOnce("blockers", cmdBlockers), false},
		{"resolve", "answer a blocker: --retry, --deny or --abort", answersAtOnce("resolve", cmdResolve), false},
		{"acquire", "check out paths or globs (a lease that outlives the command)", answersAtOnce("acquire", cmdAcquire), false},
		{"renew", "extend a check-out lease", answersAtOnce("renew", cmdRenew), false},
		{"release", "release a lease (by id or path)", answersAtOnce("release", cmdRelease), false},
		{"checkin", "validate and complete a check-out lease", answersAtOnce("checkin", cmdCheckin), false},
		{"evict", "end someone's lease as admin, with a reason", answersAtOnce("evict", cmdEvict), false},
		{"history", "the audit trail of a path or lease", answersAtOnce("history", cmdHistory), false},
		{"events", "the event stream: readable lines on a terminal, JSON lines otherwise", cmdEvents, false},
		{"ui", "the operator console: a live web page and /metrics on loopback", cmdUI, false},
		{"stop", "signal that a worker stopped (starts the stop-idle window)", answersAtOnce("stop", cmdStop), false},
		{"hook", "agent and git hook entry point (called by the agent, not by you)", cmdHook, false},
		{"install", "wire hooks into claude-code, codex, gemini, cursor or git", cmdInstall, false},
		{"uninstall", "remove exactly what install added", cmdUninstall, false},
		{"mcp", "serve leasegate's tools to an agent over MCP (stdio; started by the agent)", cmdMCP, false},
		{"doctor", "are each agent's hooks installed, trusted and answering", cmdDoctor, false},
		{"ledger", "check or recover a stopped coordinator's ledger: `ledger check`, `ledger recover`", cmdLedger, true},
		{"demo", "the whole story on a temporary repository, no setup", cmdDemo, false},
		{"version", "the module version and VCS revision of this binary", cmdVersion, false},
		{"completion", "a shell completion script: bash, zsh or fish", cmdCompletion, false},
	}
}

func main() {
	seccomp.MaybeRunChild()
	fuse.MaybeRunChild()
	undumpable()
	time.Local = time.UTC // persisted and printed times are UTC
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	globals, name, rest := splitGlobals(args)
	jsonErrors = wantsJSON(args)
	switch name {
	case "":
		if len(globals) > 0 {
			return exitCode(usagef("give a command after %s; see leasegate --help", strings.Join(globals, " ")))
		}
		usage()
		return exitUsage
	case "-h", "--help", "-help":
		usage()
		return exitOK
	case "-V", "--version", "-version":
		fmt.Println("leasegate", versionString())
		return exitOK
	case "help":
		return help(rest)
	}
	c, ok := lookup(name)
	if !ok {
		msg := fmt.Sprintf("unknown command %q", name)
		if strings.HasPrefix(name, "-") {
			msg = fmt.Sprintf("unknown flag %s before the command (global flags: --workspace, --json, --log-level, --no-start)", name)
		} else if s := suggest(name); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		return exitCode(usagef("%s (leasegate --help lists the commands)", msg))
	}
	if c.name == "run" {
		if err := spawn.CheckRunRoom(); err != nil {
			// Before signal.Notify and the first dial, whose threads the
			// Go runtime could not make at the limit and would abort.
			reportError(fmt.Errorf("run: %w", err), exitNotExecutable, reasonProcessLimit)
			return exitNotExecutable
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return exitCode(c.run(ctx, withGlobals(c, globals, rest)))
}

func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}
