//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package watch

import (
	"os"
	"syscall"
)

// watchCost is how many descriptors watching dir holds: kqueue opens the
// directory and every file in it. One read of the directory.
func watchCost(dir string) int {
	f, err := os.Open(dir)
	if err != nil {
		return 1
	}
	defer f.Close()
	names, _ := f.Readdirnames(-1)
	return 1 + len(names)
}

// watchLimit is the limit a large workspace meets: kqueue holds a
// descriptor for every watched directory and every file in it.
const watchLimit = "each watched directory and each file in it holds a descriptor, within half the open-files limit (ulimit -n)"

// DefaultBudget is half the process's open-files limit (Go raises the
// soft limit to the hard one, at most kern.maxfilesperproc on macOS, when
// it starts): the other half stays for the ledger, git and connections.
func DefaultBudget() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur == 0 {
		return 128
	}
	return int(min(lim.Cur/2, 1<<30))
}

// startLimit is what a watcher that cannot start has met: a kqueue is a
// descriptor of the process.
const startLimit = "a watcher takes a descriptor (ulimit -n): raise the limit, then restart the coordinator (leasegate serve --stop)"
