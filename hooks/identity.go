package hooks

import (
	"bytes"
	"fmt"
	"os"
	"strconv"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
)

// ownerName is who a call acts as: Config.Owner, or the agent's prefix and
// the session id.
func (h *Handler) ownerName(ev Event) (name string, explicit bool, err error) {
	if h.cfg.Owner != "" {
		name, explicit = h.cfg.Owner, true
	} else if ev.Session == "" {
		return "", false, inputErr(ev.Agent, "%s is missing, so the session has no owner name (or set LEASEGATE_AS)", sessionField(ev.Agent))
	} else {
		name = ownerPrefix[ev.Agent] + ev.Session
	}
	if err := gate.ValidID(name); err != nil {
		return "", false, inputErr(ev.Agent, "owner name: %v", err)
	}
	return name, explicit, nil
}

// agentOwner is the owner record of a session: its name and the agent's
// process as liveness handle, so the session's leases go when the agent
// dies.
func agentOwner(name string) gate.Owner {
	o := gate.Owner{Name: name}
	o.Host, _ = os.Hostname()
	o.PID = agentPID(os.Getppid())
	if start, err := liveness.ProcessStart(o.PID); err == nil {
		o.StartTime = start
	}
	return o
}

// ownerLookup is agentOwner running beside the rest of a call: reading
// /proc for the agent's start time the first time takes half a
// millisecond.
type ownerLookup struct {
	done  chan struct{}
	owner gate.Owner
}

func lookupOwner(name string) *ownerLookup {
	l := &ownerLookup{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.owner = agentOwner(name)
	}()
	return l
}

// wait returns the owner record once it is known.
func (l *ownerLookup) wait() gate.Owner {
	<-l.done
	return l.owner
}

// shells are the programs an agent may run its hook command through; the
// agent is the nearest ancestor that is not one of them.
var shells = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true,
	"ash": true, "busybox": true, "fish": true, "tcsh": true, "csh": true,
}

// agentPID walks up from pid past shells and returns the first process that
// is not one. It stops at pid 1 and where /proc cannot be read.
func agentPID(pid int) int {
	for i := 0; i < 16 && pid > 1; i++ {
		comm, ppid, err := procStat(pid)
		if err != nil || !shells[comm] {
			return pid
		}
		pid = ppid
	}
	return pid
}

// procStat reads a process's command name and parent pid from
// /proc/PID/stat. The name is in parentheses and may hold spaces and
// parentheses itself, so the fields after it are found from the last ")".
func procStat(pid int) (string, int, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, err
	}
	open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return "", 0, fmt.Errorf("/proc/%d/stat: malformed", pid)
	}
	fields := bytes.Fields(data[end+1:])
	if len(fields) < 2 {
		return "", 0, fmt.Errorf("/proc/%d/stat: malformed", pid)
	}
	ppid, err := strconv.Atoi(string(fields[1]))
	return string(data[open+1 : end]), ppid, err
}
