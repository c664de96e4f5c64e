package hooks

import (
	"os"
	"strconv"

	"github.com/leasegate/leasegate/internal/envname"
)

// EndWithCaller makes a hook that the fail-closed line started (its
// parent's pid in HookParent) receive SIGTERM when that shell ends, where
// the platform can (endWithParent), so that it ends its wait and withdraws
// the write's contention as when the agent killed it directly. An agent
// that gives up a call (its user interrupted it, its timeout) kills the
// process it started, which is now the shell: without this the hook
// would wait on, and a retry or a blocker would come for a write nobody
// makes. It removes HookParent from the environment, so that what the
// hook starts (a coordinator) does not take it for its own.
func EndWithCaller() {
	v, ok := os.LookupEnv(envname.HookParent)
	if !ok {
		return
	}
	_ = os.Unsetenv(envname.HookParent)
	if pid, err := strconv.Atoi(v); err == nil && pid > 1 && pid == os.Getppid() {
		endWithParent(pid)
	}
}
