package liveness

import (
	"fmt"
	"os"
	"strconv"

	"github.com/shirou/gopsutil/v3/process"
)

// openProcess is gopsutil's handle of pid, whose every read goes to /proc.
// It is made directly, not by process.NewProcess: that asks
// os.FindProcess, which opens a pidfd only the garbage collector closes,
// one per lookup, so a coordinator identifying its callers under a low
// `ulimit -n` ran out of descriptors (TestLookupsHoldNoDescriptor). A pid
// no process has fails its first read with ENOENT, which lookupError
// takes for ErrProcessNotFound.
func openProcess(pid int32) (*process.Process, error) { return &process.Process{Pid: pid}, nil }

// CheckProcfs reports whether /proc shows the processes of this process's
// own pid namespace. Every piece of process evidence leasegate reads there
// (a pid's start time, state, parent, thread group) is evidence only in the
// namespace /proc was mounted for: a process that entered a new pid
// namespace but kept its parent's /proc (unshare --pid --fork without
// --mount-proc) would read another process under every pid it names, and
// could take a live owner for dead or a stranger for an owner. The answer
// comes from the proc file system itself: /proc/self names this process by
// its pid in /proc's namespace. Where no proc file system is mounted the
// error is ErrNoProcfs: evidence is then missing (lookups fail, and an
// owner is judged unknown, never dead on doubt), not false.
func CheckProcfs() error { return checkProcfs("/proc", os.Getpid()) }

// checkProcfs is CheckProcfs for the proc file system at root, read by the
// process whose pid in its own namespace is pid.
func checkProcfs(root string, pid int) error {
	self, err := os.Readlink(root + "/self")
	if err != nil {
		return fmt.Errorf("%w: %s/self cannot be read (%v)", ErrNoProcfs, root, err)
	}
	if self != strconv.Itoa(pid) {
		return fmt.Errorf("%w: it shows another pid namespace's processes (%s/self is %s, this process is pid %d in its own), "+
			"so a pid read there names another process; mount a proc file system for this namespace "+
			"(unshare --mount-proc, or mount -t proc proc /proc in a mount namespace of its own)",
			ErrForeignProcfs, root, self, pid)
	}
	return nil
}
