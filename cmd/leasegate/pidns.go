package main

import (
	"context"
	"fmt"
	"os"

	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/workspace"
)

// warnPidNS says, on stderr, that the coordinator this command just
// started lives in a private pid namespace (a container's, or a worker's
// own), with what that means and the fix; status says it too.
func warnPidNS() {
	if ns := coordinator.CurrentPidNS(); !ns.Host {
		fmt.Fprintf(os.Stderr, "leasegate: started the coordinator in pid namespace %s: %s\n", ns.ID, ns.Note)
	}
}

// ownUserNS reports whether process pid runs in another user namespace
// than this process (a rootless container's), where /proc tells; false
// where it does not.
func ownUserNS(pid int) bool {
	theirs, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/user", pid))
	if err != nil {
		return false
	}
	ours, err := os.Readlink("/proc/self/ns/user")
	return err == nil && theirs != ours
}

// servingHere is e with the coordinator's pid named as status names it:
// the pid in the serve lock is the coordinator's in its own pid namespace,
// another process's (or none) in a namespace above or below it. It still
// unwraps to e, which a starter's report branches on.
func servingHere(ctx context.Context, ws *workspace.Workspace, e *workspace.ServingError) error {
	if e.PID == 0 {
		return e
	}
	seen := coordinatorPID(ctx, ws, api.Health{PID: e.PID})
	return &shownServingError{ServingError: e, pid: shownCoordinatorPID(seen, e.PID)}
}

// shownServingError is a *workspace.ServingError with its pid as this
// process sees it (shownCoordinatorPID).
type shownServingError struct {
	*workspace.ServingError
	pid string
}

func (e *shownServingError) Error() string {
	return fmt.Sprintf("another coordinator, %s, serves this workspace", e.pid)
}

func (e *shownServingError) Unwrap() error { return e.ServingError }
