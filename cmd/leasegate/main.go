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
	"syscall"
	"time"

	"github.com/leasegate/leasegate/api"
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

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string) error
}

func commands() []command {
	return []command{
		{"run", "wrap a worker: gate every mutation it and its children make", cmdRun},
		{"serve", "run the workspace coordinator (started automatically when needed)", cmdServe},
		{"status", "owners, leases, contention and open blockers", cmdStatus},
		{"blockers", "list blocker reports", cmdBlockers},
		{"resolve", "answer a blocker: --retry, --deny or --abort", cmdResolve},
		{"acquire", "check out paths or globs (a lease that outlives the command)", cmdAcquire},
		{"renew", "extend a check-out lease", cmdRenew},
		{"release", "release a lease (by id or path)", cmdRelease},
		{"checkin", "validate and complete a check-out lease", cmdCheckin},
		{"evict", "end someone's lease as admin, with a reason", cmdEvict},
		{"history", "the audit trail of a path or lease", cmdHistory},
		{"events", "the event stream as JSON lines", cmdEvents},
		{"stop", "signal that a worker stopped (starts the stop-idle window)", cmdStop},
		{"hook", "agent and git hook entry point (called by the agent, not by you)", cmdHook},
		{"install", "wire hooks into claude-code, codex, gemini, cursor or git", cmdInstall},
		{"uninstall", "remove exactly what install added", cmdUninstall},
		{"doctor", "are each agent's hooks installed, trusted and answering", cmdDoctor},
		{"ledger", "check or recover a stopped coordinator's ledger: `ledger check`, `ledger recover`", cmdLedger},
		{"demo", "the whole story on a temporary repository, no setup", cmdDemo},
		{"version", "print the version", func(context.Context, []string) error { fmt.Println("leasegate", version); return nil }},
	}
}

func main() {
	seccomp.MaybeRunChild()
	undumpable()
	time.Local = time.UTC // persisted and printed times are UTC
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage()
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return exitCode(c.run(ctx, args[1:]))
		}
	}
	fmt.Fprintf(os.Stderr, "leasegate: unknown command %q\n\n", args[0])
	usage()
	return exitUsage
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: leasegate COMMAND [flags] [args]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(os.Stderr, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(os.Stderr, "\nRun 'leasegate COMMAND -h' for a command's flags. Exit codes: 0 ok, 1 error, 2 usage, 3 denied, 4 blocked, 5 coordinator unavailable.")
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
	fmt.Fprintln(os.Stderr, "leasegate:", err)
	var ue *usageError
	switch {
	case errors.As(err, &ue):
		return exitUsage
	case errors.Is(err, api.ErrUnavailable):
		return exitUnavailable
	case errors.Is(err, errBlocked):
		return exitBlocked
	}
	var de *gate.DeniedError
	if errors.As(err, &de) {
		if de.Reason == gate.ReasonInputInvalid || de.Reason == gate.ReasonOutsideWorkspace {
			return exitUsage
		}
		return exitDenied
	}
	return exitError
}

var errBlocked = errors.New("blocked")
