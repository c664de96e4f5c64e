package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/leasegate/leasegate/intercept/fuse"
	"github.com/leasegate/leasegate/internal/envname"
)

// reasonRunUnsupported is the reason code of `run` on a platform without
// the seccomp gate.
const reasonRunUnsupported = "RUN_UNSUPPORTED"

// refuseRun says, for platform ("darwin/arm64"), that `run` cannot gate a
// worker there and what gates the agents instead; exit 2. It is said
// before anything starts: no worker, no sidecar, no coordinator.
func refuseRun(platform string) error {
	reportError(fmt.Errorf("run: the seccomp gate needs Linux on amd64 or arm64; this is %s. "+
		"Gate the agents through their hooks instead (leasegate install claude-code|codex|gemini|cursor) "+
		"and commits through the git hooks (leasegate install git)", platform), exitUsage, reasonRunUnsupported)
	return &exitStatus{code: exitUsage}
}

// refuseNestedRun says that `run` cannot gate a worker from inside another
// run's worker, whose sidecar gates this process already, as its own
// owner, whichever its gate: under seccomp the kernel gives a process one
// supervisor (a second listener is EBUSY); under FUSE the outer view would
// still ask for every write the inner one let through. It is said before
// anything starts, so no owner is registered for a command that never
// runs; exit 2.
func refuseNestedRun() error {
	reportError(fmt.Errorf("run: this process already runs under leasegate run (sidecar pid %s), which gates its writes as that run's owner; "+
		"a run inside it cannot gate them as another owner: start the command directly, or start this run outside the worker",
		os.Getenv(envname.Sidecar)), exitUsage, reasonRunUnsupported)
	return &exitStatus{code: exitUsage}
}

// fuseGate refuses `run --gate fuse` before anything starts where the FUSE
// gate cannot run: no /dev/fuse, or not root (the private mount namespace
// and the mount need CAP_SYS_ADMIN); exit 2. A mount the kernel refuses
// anyway is said when the worker starts, with the same exit status.
func fuseGate() error {
	err := fuse.Available()
	if err == nil && os.Geteuid() != 0 {
		err = fuse.ErrMountRefused
	}
	if err == nil {
		return nil
	}
	// A user without root has both in a user namespace of its own; no
	// such namespace gives a missing /dev/fuse.
	alt := "use --gate seccomp, which needs neither"
	if errors.Is(err, fuse.ErrMountRefused) {
		alt = "use --gate seccomp, which needs neither, or run the FUSE gate in a user namespace of your own: unshare -Ur leasegate run --gate fuse ..."
	}
	reportError(fmt.Errorf("run --gate fuse: %w; %s", err, alt), exitUsage, reasonRunUnsupported)
	return &exitStatus{code: exitUsage}
}

// refuseForeignProcfs says that `run` cannot gate from a pid namespace
// whose /proc is another's: the gate names each writer by its pid there
// (its thread group, working directory and descriptors), and would read
// another process under every pid. It is said before anything starts;
// exit 2.
func refuseForeignProcfs(err error) error {
	reportError(fmt.Errorf("run: %w", err), exitUsage, reasonRunUnsupported)
	return &exitStatus{code: exitUsage}
}
