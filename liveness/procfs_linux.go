package liveness

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

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
//
// A /proc mounted with hidepid hides from a user every process /proc
// would not let it trace: other users' processes, and its own leasegate
// processes, which make themselves undumpable so that workers cannot
// trace them. A coordinator could then identify no caller, and its
// user's commands would be refused one by one: ErrHiddenProcs says why at
// once, unless the mount's gid= exempts the user or it is root.
func CheckProcfs() error {
	if err := checkProcfs("/proc", os.Getpid()); err != nil {
		return err
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil // no mount table to read: the lookups say what they cannot read
	}
	groups, _ := os.Getgroups()
	return checkHidepid(string(mounts), os.Geteuid(), append(groups, os.Getegid()))
}

// checkHidepid returns ErrHiddenProcs when the last proc file system
// mounted at /proc in mounts (a mountinfo table) hides processes from a
// process of uid euid in groups.
func checkHidepid(mounts string, euid int, groups []int) error {
	var opts []string
	for line := range strings.Lines(mounts) {
		f := strings.Fields(line)
		if sep := slices.Index(f, "-"); sep > 4 && len(f) > sep+3 && f[4] == "/proc" && f[sep+1] == "proc" {
			opts = strings.Split(f[sep+3], ",")
		}
	}
	hidepid, gid := "", -1
	for _, o := range opts {
		k, v, _ := strings.Cut(o, "=")
		switch k {
		case "hidepid":
			hidepid = v
		case "gid":
			gid, _ = strconv.Atoi(v)
		}
	}
	if hidepid == "" || hidepid == "0" || hidepid == "off" || euid == 0 || slices.Contains(groups, gid) {
		return nil
	}
	return fmt.Errorf("%w: /proc is mounted with hidepid=%s, which hides from this user the processes of other users and "+
		"its own leasegate processes (undumpable, so that workers cannot trace them), so a coordinator could identify none "+
		"of its callers; remount it without hidepid (mount -o remount,hidepid=off /proc) or with gid= a group of this user's",
		ErrHiddenProcs, hidepid)
}

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
