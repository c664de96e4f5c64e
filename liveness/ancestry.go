package liveness

import (
	"fmt"
)

// Proc is one process of an ancestry: its pid and its create time in
// milliseconds since the epoch, as ProcessStart gives it (and as an owner
// registers it), so a pid the kernel has given to another process since is
// told apart.
type Proc struct {
	PID       int
	StartTime int64
}

// maxAncestry bounds an ancestry walk; a real process tree is far
// shallower, and a loop in what /proc says cannot make the walk endless.
const maxAncestry = 1024

// Ancestry returns process pid and its ancestors, nearest first, up to
// and including pid 1 (or the topmost ancestor this pid namespace sees).
// It reads each process's parent and create time from /proc (through
// gopsutil). An ancestor that exits during the walk is stepped over: its
// child, re-read, names the process it was re-parented to (a subreaper or
// init). Any process of the chain that cannot be read otherwise is an
// error, never a shorter chain: a missing link could be an owner's root.
func Ancestry(pid int) ([]Proc, error) {
	cur, ppid, err := procParent(pid)
	if err != nil {
		return nil, err
	}
	out := []Proc{cur}
	for len(out) < maxAncestry && ppid > 0 {
		next, nppid, err := procParent(ppid)
		if err != nil {
			if ppid, err = reparented(out[len(out)-1], ppid); err != nil {
				return nil, fmt.Errorf("ancestry of pid %d: %w", pid, err)
			}
			continue
		}
		out, ppid = append(out, next), nppid
	}
	return out, nil
}

// reparented re-reads child after its parent old could not be read, and
// returns its new parent; an error if child itself is gone or its parent
// did not change.
func reparented(child Proc, old int) (int, error) {
	again, ppid, err := procParent(child.PID)
	switch {
	case err != nil:
		return 0, err
	case again.StartTime != child.StartTime:
		return 0, fmt.Errorf("pid %d: %w", child.PID, ErrProcessNotFound)
	case ppid == old:
		return 0, fmt.Errorf("parent %d of pid %d cannot be read", old, child.PID)
	}
	return ppid, nil
}

// procParent reads a process's create time and parent pid.
func procParent(pid int) (Proc, int, error) {
	p, err := newProcess(pid)
	if err != nil {
		return Proc{}, 0, err
	}
	start, err := p.CreateTime()
	if err != nil {
		return Proc{}, 0, lookupError(pid, err)
	}
	ppid, err := p.Ppid()
	if err != nil {
		return Proc{}, 0, lookupError(pid, err)
	}
	return Proc{PID: pid, StartTime: start}, int(ppid), nil
}

// Comm returns the short name of process pid (/proc/PID/comm on Linux),
// or "" when it cannot be read.
func Comm(pid int) string {
	p, err := newProcess(pid)
	if err != nil {
		return ""
	}
	name, err := p.Name()
	if err != nil {
		return ""
	}
	return name
}
