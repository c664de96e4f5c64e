//go:build linux

package spawn

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept/procfs"
)

// CheckProcRoom returns a *ProcLimitError when the user's process limit
// leaves less room than StartTasks: starting a worker would fail halfway,
// its helpers aborting. It returns nil where the limit does not apply (no
// limit, the root user) or cannot be read.
func CheckProcRoom() error { return checkRoom(StartTasks) }

// CheckRunRoom is CheckProcRoom for the process that will start a worker,
// called as it starts: it also keeps room for the threads that process
// has yet to make before it starts the gate (RunTasks less those it has).
// It must come before anything that makes the Go runtime start threads
// (signal.Notify, a dial, a goroutine blocked in a system call): the
// runtime aborts, naming no limit, when it cannot make one.
func CheckRunRoom() error {
	self, err := procfs.Threads(os.Getpid())
	if err != nil {
		return nil
	}
	return checkRoom(StartTasks + max(RunTasks-self, 0))
}

// checkRoom returns a *ProcLimitError when the user's process limit
// leaves room for fewer than need more processes and threads.
func checkRoom(need int) error {
	limit, ok := procLimit()
	if !ok {
		return nil
	}
	tasks, err := procfs.UserTasks(os.Getuid())
	if err != nil || uint64(tasks)+uint64(need) <= limit {
		return nil
	}
	return &ProcLimitError{Limit: limit, Tasks: tasks, Need: need}
}

// ProcLimited returns err, a failed fork, as a *ProcLimitError when the
// kernel refused it (EAGAIN) with the user at its process limit, and err
// itself otherwise: EAGAIN below the limit comes from elsewhere (a cgroup's
// pids.max).
func ProcLimited(err error) error {
	var pl *ProcLimitError
	if !errors.Is(err, syscall.EAGAIN) || errors.As(err, &pl) {
		return err
	}
	limit, ok := procLimit()
	if !ok {
		return err
	}
	tasks, cerr := procfs.UserTasks(os.Getuid())
	if cerr != nil {
		tasks = -1
	} else if uint64(tasks)+StartTasks < limit {
		return err
	}
	return &ProcLimitError{Limit: limit, Tasks: tasks, Err: err}
}

// procLimit returns the soft RLIMIT_NPROC when it applies to this
// process: the kernel does not hold the root user to it.
func procLimit() (uint64, bool) {
	var lim unix.Rlimit
	if os.Getuid() == 0 || unix.Getrlimit(unix.RLIMIT_NPROC, &lim) != nil || lim.Cur == unix.RLIM_INFINITY {
		return 0, false
	}
	return lim.Cur, true
}

// procLimitDetail is a *ProcLimitError as the reaper sends it to the
// supervisor, and procLimitFrom reads it back.
func procLimitDetail(e *ProcLimitError) string {
	return fmt.Sprintf("%d %d %v", e.Limit, e.Tasks, e.Err)
}

func procLimitFrom(detail string) error {
	f := strings.SplitN(detail, " ", 3)
	if len(f) != 3 {
		return fmt.Errorf("%s: %w", detail, ErrHandshake)
	}
	limit, err := strconv.ParseUint(f[0], 10, 64)
	tasks, terr := strconv.Atoi(f[1])
	if err != nil || terr != nil {
		return fmt.Errorf("%s: %w", detail, ErrHandshake)
	}
	return &ProcLimitError{Limit: limit, Tasks: tasks, Err: errors.New(f[2])}
}
