package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"os"
	"os/exec"

	"github.com/mattn/go-isatty"

	"github.com/leasegate/leasegate/hooks"
	"github.com/leasegate/leasegate/intercept/spawn"
	"github.com/leasegate/leasegate/internal/envname"
	"github.com/leasegate/leasegate/liveness"
	"github.com/leasegate/leasegate/sidecar"
)

// Exit codes of a worker that cannot be started, as a shell has them.
const (
	exitNotExecutable = 126
	exitNotFound      = 127
)

// reasonProcessLimit is the reason code of a worker that could not be
// started because its user is at its process limit (`ulimit -u`).
const reasonProcessLimit = "PROCESS_LIMIT"

// findWorker checks, before anything starts, that the worker's command
// can be run: like a shell, one line and 127 when it is not found, 126
// when it cannot be executed.
func findWorker(name string) error {
	_, err := exec.LookPath(name)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, iofs.ErrPermission):
		reportError(fmt.Errorf("run: %s: permission denied", name), exitNotExecutable, "PERMISSION_DENIED")
		return &exitStatus{code: exitNotExecutable}
	}
	reportError(fmt.Errorf("run: %s: command not found", name), exitNotFound, "COMMAND_NOT_FOUND")
	return &exitStatus{code: exitNotFound}
}

func cmdRun(ctx context.Context, args []string) error {
	var f common
	var as, gateKind, notices string
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	f.register(fs, true)
	fs.StringVar(&as, "as", os.Getenv(envname.As), "owner name of this worker (env "+envname.As+"); required")
	fs.StringVar(&gateKind, "gate", string(sidecar.GateSeccomp), "how mutations are intercepted: seccomp (unprivileged), or fuse (a gated FUSE view of the workspace per worker, in its own mount namespace; needs root and /dev/fuse)")
	fuseCache := fs.Duration("fuse-cache", 0, "with --gate fuse: how long the kernel keeps the names and attributes of files looked up through the view even when a change made outside it was not seen (0: only what its watch of the files beneath keeps coherent)")
	fs.StringVar(&notices, "notices", envOr(envname.Notices, noticesAuto),
		"where other owners' notices for this worker go while it runs: auto (a log file when stderr is a terminal, else stderr), tty, log (env "+envname.Notices+")")
	if err := parse(fs, args); err != nil {
		return err
	}
	if notices != noticesAuto && notices != noticesTTY && notices != noticesLog {
		return usagef("run: %s: want auto, tty or log", givenAs(fs, "notices", envname.Notices))
	}
	if err := runGate(); err != nil {
		return err
	}
	if hooks.UnderSidecar() {
		return refuseNestedRun()
	}
	if err := liveness.CheckProcfs(); err != nil {
		return refuseForeignProcfs(err)
	}
	argv := fs.Args()
	switch {
	case as == "":
		return usagef("run: --as NAME is required")
	case len(argv) == 0:
		return usagef("run: give the worker command after --, e.g. leasegate run --as alice -- claude")
	case gateKind != string(sidecar.GateSeccomp) && gateKind != string(sidecar.GateFuse):
		return usagef("run: --gate %q is not available; use seccomp or fuse, or agent hooks (leasegate install claude-code)", gateKind)
	}
	if *fuseCache < 0 || (*fuseCache > 0 && sidecar.Gate(gateKind) != sidecar.GateFuse) {
		return usagef("run: --fuse-cache %s: want zero or more, with --gate fuse", *fuseCache)
	}
	if sidecar.Gate(gateKind) == sidecar.GateFuse {
		if err := fuseGate(); err != nil {
			return err
		}
	}
	if err := findWorker(argv[0]); err != nil {
		return err
	}
	cl, ws, err := f.client(ctx)
	if err != nil {
		return err
	}
	defer cl.Close()
	holder, closeNotices, err := holderNotices(notices, ws, as)
	if err != nil {
		return err
	}
	defer closeNotices()
	cfg := sidecar.Config{
		Gate: sidecar.Gate(gateKind), FuseCache: *fuseCache, Name: as, Argv: argv, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, HolderNotices: holder,
		Countdown: isatty.IsTerminal(os.Stderr.Fd()), TerminalWidth: func() int { return terminalWidth(os.Stderr) },
		Workspace: ws, Client: namedLedgerClient{Client: cl, ws: ws}, Windows: f.windows, Logger: f.logger("leasegate"),
	}
	if !f.noStart {
		cfg.Restart = func(ctx context.Context) error { return f.startServer(ctx, ws, cl) }
	}
	code, err := sidecar.Run(ctx, cfg)
	if err = spawn.ProcLimited(err); err != nil {
		var pl *spawn.ProcLimitError
		if errors.As(err, &pl) {
			// A fork refused by the user's process limit, the gate's or
			// the sidecar's own (its git): a worker that cannot be
			// started, as a shell says a command that cannot be executed.
			reportError(err, exitNotExecutable, reasonProcessLimit)
			return &exitStatus{code: exitNotExecutable}
		}
		return err
	}
	return &exitStatus{code: code}
}
