package main

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// undumpable makes this process non-dumpable (PR_SET_DUMPABLE 0): a
// worker running as the same user can then neither ptrace it nor open its
// /proc/<pid>/mem, environ or fds, so the sidecar and the coordinator,
// which run without the worker's filter, cannot be used to write past the
// gate. The workers they start are dumpable again (execve resets it).
func undumpable() {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "leasegate: become undumpable: %v\n", err)
	}
}
