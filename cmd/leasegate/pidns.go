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
