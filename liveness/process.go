package liveness

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"syscall"

	"github.com/shirou/gopsutil/v3/process"
)

// ErrProcessNotFound is returned (wrapped) by ProcessStart and TreeStopped
// when no process has the pid.
var ErrProcessNotFound = errors.New("process not found")

// ErrInvalidPID is returned (wrapped) for a pid that no process can have.
var ErrInvalidPID = errors.New("invalid pid")

// ErrForeignProcfs is CheckProcfs's answer when /proc shows another pid
// namespace's processes.
var ErrForeignProcfs = errors.New("/proc is not this pid namespace's")

// ErrHiddenProcs is CheckProcfs's answer when /proc hides processes from
// this user (mounted with hidepid): the callers a coordinator identifies
// there cannot be read.
var ErrHiddenProcs = errors.New("/proc hides processes from this user")

// ErrNoProcfs is CheckProcfs's answer when no proc file system is mounted
// at /proc.
var ErrNoProcfs = errors.New("no proc file system is mounted at /proc")

// procState is what a process lookup tells the evaluator.
type procState struct {
	start  int64  // create time, ms since the epoch
	status string // a gopsutil status: process.Running, process.Stop, ...
}

// lookupFunc finds a process by pid; the evaluator's tests replace it.
type lookupFunc func(pid int) (procState, error)

// lookupProcess reads a process's create time and status with gopsutil.
func lookupProcess(pid int) (procState, error) {
	p, err := newProcess(pid)
	if err != nil {
		return procState{}, err
	}
	start, err := p.CreateTime()
	if err != nil {
		return procState{}, lookupError(pid, err)
	}
	st, err := processStatus(p)
	if err != nil {
		return procState{}, lookupError(pid, err)
	}
	return procState{start: start, status: st[0]}, nil
}

// ProcessStart returns the create time of process pid in milliseconds since
// the epoch: what a sidecar registers as Owner.StartTime.
func ProcessStart(pid int) (int64, error) {
	p, err := newProcess(pid)
	if err != nil {
		return 0, err
	}
	start, err := p.CreateTime()
	if err != nil {
		return 0, lookupError(pid, err)
	}
	return start, nil
}

func newProcess(pid int) (*process.Process, error) {
	if pid <= 0 || pid > math.MaxInt32 {
		return nil, fmt.Errorf("pid %d: %w", pid, ErrInvalidPID)
	}
	p, err := openProcess(int32(pid))
	if err != nil {
		return nil, lookupError(pid, err)
	}
	return p, nil
}

// lookupError wraps err, turning every way gopsutil says "no such process"
// (including a process that exits between two reads of /proc) into
// ErrProcessNotFound.
func lookupError(pid int, err error) error {
	if errors.Is(err, process.ErrorProcessNotRunning) || errors.Is(err, fs.ErrNotExist) ||
		errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("pid %d: %w", pid, ErrProcessNotFound)
	}
	return fmt.Errorf("pid %d: %w", pid, err)
}
