//go:build linux

package spawn

import (
	"os"

	"github.com/leasegate/leasegate/internal/envname"
)

// Gate is one adapter's part in starting a worker.
type Gate struct {
	// Name names the adapter ("seccomp", "fuse"). It marks the helper and
	// the reaper (their argv[0] is leasegate-NAME-helper and
	// leasegate-NAME-reaper) and starts their error messages.
	Name string
	// Setup runs in the helper, on the OS thread that will exec the
	// worker, before the exec: it puts that thread under the gate and
	// calls handOver with the fd the supervisor is to serve. handOver
	// returns once the supervisor serves it (or fails); Setup then does
	// what must follow (the fd is closed by Setup, never kept by the
	// worker) and returns nil to let the worker start.
	Setup func(handOver func(fd int) error) error
	// Errors are the sentinel errors Setup may wrap that Start is to
	// return wrapped too (a kernel without the feature the gate needs);
	// any other failure of Setup is an ErrHandshake.
	Errors []error
}

// MaybeRun turns the process into g's helper or reaper if Start re-executed
// it as one, and otherwise returns at once. Each adapter's MaybeRunChild
// calls it; call that first thing in main (and in TestMain of tests that
// start workers), before any goroutines or flag parsing.
//
// As the helper it never returns: it runs g.Setup, and execs the worker;
// on any failure it prints why on stderr and exits with 127. As the reaper
// it never returns either: it exits as the worker did.
//
// The marker variable alone does not make a helper or a reaper: one
// inherited by mistake (exported while debugging, copied from a helper's
// environment) would turn every leasegate command into one, so the
// argv[0] that Start gives it must be there too.
func MaybeRun(g Gate) {
	if len(os.Args) == 0 {
		return
	}
	if os.Getenv(envname.SpawnReaper) == g.Name && os.Args[0] == g.reaperArg0() {
		runReaper(g, os.Args[1:])
	}
	if os.Getenv(envname.SpawnHelper) == g.Name && os.Args[0] == g.helperArg0() {
		os.Exit(runHelper(g, os.Args[1:]))
	}
}

func (g Gate) helperArg0() string { return "leasegate-" + g.Name + "-helper" }
func (g Gate) reaperArg0() string { return "leasegate-" + g.Name + "-reaper" }
