// Command leasegate is a transparent write-gating sidecar with liveness
// reclaim: it wraps coding agents so that every file mutation they make in
// a workspace passes a lease gate first. See the README for the commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/intercept/seccomp"
)

// Exit codes. They are part of the interface and documented in the README.
const (
	exitOK          = 0
	exitError       = 1 // anything else: I/O, internal error
	exitUsage       = 2 // bad flags or arguments
	exitDenied      = 3 // the gate said no: held by another owner, wrong token, expired, evicted, ...
	exitBlocked     = 4 // a blocker report is open for the mutation, or an operator aborted it
	exitUnavailable = 5 // the coordinator could not be reached or started
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
		{"status", "owners, leases, contention and open blockers", cmdStatus, false},
		{"blockers", "list blocker reports", cmdBlockers, false},
		{"resolve", "answer a blocker: --retry, --deny or --abort", cmdResolve, false},
		{"acquire", "check out paths or globs (a lease that outlives the command)", cmdAcquire, false},
		{"renew", "extend a check-out lease", cmdRenew, false},
		{"release", "release a lease (by id or path)", cmdRelease, false},
		{"checkin", "validate and complete a check-out lease", cmdCheckin, false},
		{"evict", "end someone's lease as admin, with a reason", cmdEvict, false},
		{"history", "the audit trail of a path or lease", cmdHistory, false},
		{"events", "the event stream: readable lines on a terminal, JSON lines otherwise", cmdEvents, false},
		{"ui", "the operator console: a live web page and /metrics on loopback", cmdUI, false},
		{"stop", "signal that a worker stopped (starts the stop-idle window)", cmdStop, false},
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

// help is `leasegate help [COMMAND]`.
func help(args []string) int {
	if len(args) == 0 {
		usage()
		return exitOK
	}
	c, ok := lookup(args[0])
	if !ok {
		return run(args) // says it is unknown, with a suggestion
	}
	return exitCode(c.run(context.Background(), append(args[1:len(args):len(args)], "--help")))
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: leasegate [--workspace DIR] [--json] [--log-level L] [--no-start] COMMAND [flags] [args]\n       leasegate --version\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(os.Stderr, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(os.Stderr, "\nRun 'leasegate help COMMAND' (or 'leasegate COMMAND -h') for a command's usage, flags and examples.\n"+
		"Exit codes: 0 ok, 1 error, 2 usage or not found, 3 denied, 4 blocked, 5 coordinator unavailable, 127 command not found (run).")
}

// usageError marks a bad invocation.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// exitStatus carries an exit code chosen by a command (run passes the
// worker's own status through).
type exitStatus struct{ code int }

func (e *exitStatus) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var es *exitStatus
	if errors.As(err, &es) {
		return es.code
	}
	code, reason := classify(err)
	reportError(err, code, reason)
	return code
}

// classify is an error's exit code and reason code.
func classify(err error) (int, string) {
	var ue *usageError
	var de *gate.DeniedError
	switch {
	case errors.As(err, &ue):
		return exitUsage, reasonUsage
	case errors.Is(err, api.ErrUnavailable):
		return exitUnavailable, string(api.CodeUnavailable)
	case errors.Is(err, errBlocked):
		return exitBlocked, reasonBlocked
	case errors.Is(err, blocker.ErrNotOpen):
		return exitDenied, string(api.CodeNotOpen)
	case errors.As(err, &de):
		switch de.Reason {
		case gate.ReasonInputInvalid, gate.ReasonOutsideWorkspace, gate.ReasonTTLOutOfBounds, gate.ReasonNotFound:
			return exitUsage, string(de.Reason)
		case api.CodeInternal:
			return exitError, string(de.Reason)
		}
		return exitDenied, string(de.Reason)
	}
	return exitError, reasonError
}

var errBlocked = errors.New("blocked")
