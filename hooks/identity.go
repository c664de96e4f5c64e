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
// dies. The process's start time comes from the session's last
// registration when the same process (pid, boot and start in clock ticks,
// one read of /proc) made it: liveness.ProcessStart reads /proc/cpuinfo
// and more the first time, a millisecond of every call.
func agentOwner(last registration, name string) registration {
	r := registration{Owner: gate.Owner{Name: name}, Agent: agentProcess(os.Getppid())}
	r.Owner.Host, _ = os.Hostname()
	r.Owner.PID = r.Agent.PID
	if a := last.Agent; r.Agent.known() && a.PID == r.Agent.PID && a.Boot == r.Agent.Boot && a.Ticks == r.Agent.Ticks {
		r.Owner.StartTime, r.Agent.StartTime = a.StartTime, a.StartTime
		return r
	}
	if start, err := liveness.ProcessStart(r.Owner.PID); err == nil {
		r.Owner.StartTime, r.Agent.StartTime = start, start
	}
	return r
}

// agentProc identifies the agent's process across calls.
type agentProc struct {
	PID       int    `json:"pid"`
	Boot      string `json:"boot_id"`     // the kernel's boot id: pids and ticks restart with a boot
	Ticks     uint64 `json:"start_ticks"` // start in clock ticks since boot, from /proc/PID/stat
	StartTime int64  `json:"start_time"`  // liveness.ProcessStart's answer for it
}

// known reports whether the process could be identified.
func (p agentProc) known() bool { return p.Boot != "" && p.Ticks != 0 }

// agentProcess returns the agent's process: the first process up from pid
// that is not a shell.
func agentProcess(pid int) agentProc {
	pid, st, err := agentPID(pid)
	p := agentProc{PID: pid}
	if err != nil {
		return p
	}
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return p
	}
	p.Boot, p.Ticks = string(bytes.TrimSpace(boot)), st.ticks
	return p
}

// shells are the programs an agent may run its hook command through; the
// agent is the nearest ancestor that is not one of them.
var shells = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true,
	"ash": true, "busybox": true, "fish": true, "tcsh": true, "csh": true,
}

// agentPID walks up from pid past shells and returns the first process that
// is not one, with its stat. It stops at pid 1 and where /proc cannot be
// read.
func agentPID(pid int) (int, stat, error) {
	for i := 0; i < 16 && pid > 1; i++ {
		st, err := procStat(pid)
		if err != nil || !shells[st.comm] {
			return pid, st, err
		}
		pid = st.ppid
	}
	st, err := procStat(pid)
	return pid, st, err
}

// stat is what the hooks read of /proc/PID/stat.
type stat struct {
	comm  string
	ppid  int
	ticks uint64 // start time in clock ticks since boot
}

// procStat reads a process's command name, parent pid and start time from
// /proc/PID/stat. The name is in parentheses and may hold spaces and
// parentheses itself, so the fields after it are found from the last ")".
func procStat(pid int) (stat, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, err
	}
	open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return stat{}, fmt.Errorf("/proc/%d/stat: malformed", pid)
	}
	// After the name: state (field 3), ppid (4), ..., starttime (22).
	fields := bytes.Fields(data[end+1:])
	if len(fields) < 20 {
		return stat{}, fmt.Errorf("/proc/%d/stat: malformed", pid)
	}
	st := stat{comm: string(data[open+1 : end])}
	if st.ppid, err = strconv.Atoi(string(fields[1])); err != nil {
		return stat{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	if st.ticks, err = strconv.ParseUint(string(fields[19]), 10, 64); err != nil {
		return stat{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return st, nil
}
