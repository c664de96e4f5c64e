//go:build linux

package procfs

import (
	"bytes"
	"os"
	"strconv"
)

// Descendants lists every process below root, read from /proc. A
// process that exits during the walk is left out.
func Descendants(root int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := Parent(pid); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		out = append(out, children[p]...)
		queue = append(queue, children[p]...)
	}
	return out
}

// Parent reads a process's parent pid from /proc/PID/stat: the fourth
// field, after the command name in parentheses (which may itself hold
// spaces and parentheses, so the last ')' ends it).
func Parent(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(string(f[1]))
	return ppid, err == nil
}

// Stopped reports whether process pid is stopped by a signal (state T in
// /proc/PID/stat; a traced stop, t, is not one): suspended by Ctrl-Z, a
// SIGSTOP or a SIGTTIN or SIGTTOU. A process that cannot be read is not.
func Stopped(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return false
	}
	f := bytes.Fields(b[i+1:])
	return len(f) > 0 && string(f[0]) == "T"
}
