package hooks

import (
	"os"

	"golang.org/x/sys/unix"
)

// endWithParent asks the kernel for SIGTERM when the parent, pid, ends.
// The kernel sends it when the thread that started this process ends,
// which for a shell is the process. A parent that ended before the
// request left this process to another one, and is told at once.
func endWithParent(pid int) {
	if unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGTERM), 0, 0, 0) != nil {
		return
	}
	if os.Getppid() != pid {
		_ = unix.Kill(os.Getpid(), unix.SIGTERM)
	}
}
