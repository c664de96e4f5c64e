package main

import (
	"errors"
	"fmt"

	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/intercept/fuse"
	"github.com/leasegate/leasegate/workspace"
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
	var ce *workspace.ConfigError
	var lm *ledgerMismatchError
	switch {
	case errors.As(err, &ue):
		return exitUsage, reasonUsage
	case errors.As(err, &ce):
		// Malformed input, also when a coordinator could not start on it.
		return exitUsage, string(gate.ReasonInputInvalid)
	case errors.Is(err, workspace.ErrNoWorkTree):
		// Run where there is nothing to gate: as a --workspace that
		// does not exist.
		return exitUsage, reasonUsage
	case errors.As(err, &lm):
		return exitUsage, reasonLedgerMismatch
	case errors.Is(err, fuse.ErrNoFuse) || errors.Is(err, fuse.ErrMountRefused):
		// run --gate fuse where the kernel refused the view's mount.
		return exitUsage, reasonRunUnsupported
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
