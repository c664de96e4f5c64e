package liveness

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// maxWalk bounds a walk up a process's ancestry; a real tree is far
// shallower, and a loop in what /proc says cannot make the walk endless.
const maxWalk = 1024

// Identify finds an owner's process from the process on the other end of
// its connection: peer is that process's pid as this process's pid
// namespace sees it (SO_PEERCRED); reported and start are the pid and
// create time the owner registered, as its own pid namespace sees them.
// The owner's process is the peer or the nearest of its ancestors whose
// pid in the peer's pid namespace is reported (from NSpid in
// /proc/PID/status) and, if start is not zero, whose create time is start
// (within StartSlack). It returns that process with its pid in this
// namespace, or ErrNotIdentified (wrapped) with what the walk saw.
func Identify(peer, reported int, start int64) (ProcID, error) {
	chain, err := nsPIDs(peer)
	if err != nil {
		return ProcID{}, err
	}
	depth := len(chain.ns) // the peer's namespace, counted from this one
	cur := chain
	for range maxWalk {
		if len(cur.ns) >= depth && cur.ns[depth-1] == reported {
			got, err := ProcessStart(cur.pid)
			if err != nil {
				return ProcID{}, err
			}
			if start != 0 && !withinSlack(got, start) {
				return ProcID{}, fmt.Errorf("pid %d (pid %d in the peer's namespace) started at %s, not at the registered %s: %w",
					cur.pid, reported, msTime(got), msTime(start), ErrNotIdentified)
			}
			return ProcID{PID: cur.pid, StartTime: got}, nil
		}
		if cur.ppid <= 0 {
			break
		}
		if cur, err = nsPIDs(cur.ppid); err != nil {
			return ProcID{}, err
		}
	}
	return ProcID{}, fmt.Errorf("pid %d of the peer's namespace is neither the peer (pid %d here) nor one of its ancestors: %w",
		reported, peer, ErrNotIdentified)
}

// nsProc is what /proc/PID/status says of a process's pids.
type nsProc struct {
	pid, ppid int
	ns        []int // NSpid: its pid in this namespace, then in each nested one
}

// nsPIDs reads a process's parent and its pid in each pid namespace from
// /proc/PID/status.
func nsPIDs(pid int) (nsProc, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return nsProc{}, lookupError(pid, err)
	}
	p := nsProc{pid: pid}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		key, val, _ := bytes.Cut(sc.Bytes(), []byte(":"))
		switch string(key) {
		case "PPid":
			p.ppid, _ = strconv.Atoi(string(bytes.TrimSpace(val)))
		case "NSpid":
			for _, f := range bytes.Fields(val) {
				n, _ := strconv.Atoi(string(f))
				p.ns = append(p.ns, n)
			}
		}
	}
	if len(p.ns) == 0 {
		p.ns = []int{pid} // a kernel before 4.1 has no NSpid: one namespace
	}
	return p, nil
}
