package liveness

import (
	"errors"
	"fmt"

	"github.com/shirou/gopsutil/v3/process"
)

// TreeStopped reports whether process pid and all its descendants are
// stopped (state T or t): the signal for a stop-idle release of a worker's
// process tree. A descendant that is a zombie does not count against it
// (it can no longer write); a descendant that exits during the walk is
// skipped. A process started after the walk began may be missed, so callers
// re-check before acting, as the stop-idle window does anyway. A missing
// root gives ErrProcessNotFound.
func TreeStopped(pid int) (bool, error) {
	st, err := lookupProcess(pid)
	if err != nil {
		return false, err
	}
	if st.status != process.Stop {
		return false, nil
	}
	children, err := childrenByParent()
	if err != nil {
		return false, err
	}
	for _, c := range descendants(int32(pid), children) {
		stopped, err := descendantStopped(c)
		if err != nil || !stopped {
			return false, err
		}
	}
	return true, nil
}

// descendantStopped reports whether a descendant is stopped or a zombie;
// one that no longer exists counts as stopped.
func descendantStopped(pid int32) (bool, error) {
	st, err := processStatus(&process.Process{Pid: pid})
	switch {
	case err != nil && errors.Is(lookupError(int(pid), err), ErrProcessNotFound):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("status of pid %d: %w", pid, err)
	}
	return st[0] == process.Stop || st[0] == process.Zombie, nil
}

// childrenByParent maps every process's parent pid to its children.
// Processes that exit while it reads are left out; any other failure to
// read one is an error, since the missed process could be a running
// descendant.
func childrenByParent() (map[int32][]int32, error) {
	pids, err := process.Pids()
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	children := make(map[int32][]int32)
	for _, pid := range pids {
		ppid, err := (&process.Process{Pid: pid}).Ppid()
		if err != nil {
			if err = lookupError(int(pid), err); errors.Is(err, ErrProcessNotFound) {
				continue
			}
			return nil, fmt.Errorf("parent of %w", err)
		}
		children[ppid] = append(children[ppid], pid)
	}
	return children, nil
}

// descendants returns every process below root, each once.
func descendants(root int32, children map[int32][]int32) []int32 {
	seen := map[int32]bool{root: true}
	var out []int32
	queue := []int32{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
				queue = append(queue, c)
			}
		}
	}
	return out
}
