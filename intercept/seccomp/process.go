//go:build linux && (amd64 || arm64)

package seccomp

import (
	"bufio"
	"errors"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept"
)

// processTarget is the process a ptrace attach, process_vm_writev,
// pidfd_open or pidfd_getfd names: by pid, or by pidfd (pid unset).
type processTarget struct {
	pid   int
	pidfd int // -1 when the syscall names a pid
}

// errOutsideTree refuses (EPERM) a syscall that reaches into a process
// outside the worker's tree: another owner's processes, the sidecar, the
// coordinator. Tracing one would let the worker write as it, ungated.
var errOutsideTree = errors.New("process outside the worker's tree")

// errForeignMemory refuses (EACCES) a write open of another process's
// files in /proc: its memory (ptrace by other means), its descriptors.
var errForeignMemory = errors.New("memory of a process outside the worker's tree")

// checkProcess lets a process syscall run (errNoMutation) when its target
// is of the worker's tree, and refuses it otherwise. A thread in a pid
// namespace of its own names pids the sidecar cannot read: refused.
//
// The target is checked, then the kernel acts on the pid (or pidfd) it
// reads again: a target that exits and whose pid is reused within that
// moment, or a pidfd swapped by another thread, is not caught.
func (s *Supervisor) checkProcess(t *tracee, p processTarget) error {
	if nestedPidNS(t.tid) {
		return errOutsideTree
	}
	pid := p.pid
	if p.pidfd >= 0 {
		var err error
		if pid, err = pidfdPid(t.tid, p.pidfd); err != nil {
			return err
		}
	}
	if s.InTree(pid) {
		return errNoMutation
	}
	return errOutsideTree
}

// pidfdPid reads the pid a pidfd of the tracee names (fdinfo's "Pid:"
// line, in the sidecar's pid namespace). An fd that is no pidfd is EBADF,
// as the kernel answers.
func pidfdPid(tid, fd int) (int, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(tid) + "/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		return 0, unix.EBADF
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Pid:"); ok {
			pid, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || pid <= 0 {
				return 0, errOutsideTree // -1: the process is gone, or elsewhere
			}
			return pid, nil
		}
	}
	return 0, unix.EBADF
}

// nestedPidNS reports whether the thread lives in a pid namespace below
// the sidecar's (its NSpid line has more than one id), or cannot be read.
func nestedPidNS(tid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return true
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "NSpid:"); ok {
			return len(strings.Fields(v)) > 1
		}
	}
	return false
}

// guardMemory refuses a mutation of another process's /proc files: a
// write open of /proc/<pid>/mem (ptrace by other means), of
// /proc/<pid>/fd/<n> (a pipe or socket of that process: another agent's
// standard input), or of any other of its files, for a process outside the
// worker's tree.
func (s *Supervisor) guardMemory(m intercept.Mutation) error {
	for _, p := range m.Paths {
		rest, ok := strings.CutPrefix(p, "/proc/")
		if !ok {
			continue
		}
		pidStr, _, _ := strings.Cut(rest, "/")
		pid, err := strconv.Atoi(pidStr)
		if err != nil {
			continue // /proc/sys, /proc/sysrq-trigger...: not a process
		}
		if !s.InTree(pid) {
			return errForeignMemory
		}
	}
	return nil
}
