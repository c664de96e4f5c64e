package main

import (
	"fmt"
	"os"

	"github.com/leasegate/leasegate/coordinator"
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
