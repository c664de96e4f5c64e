package hooks

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/envname"
	"github.com/leasegate/leasegate/liveness"
	"github.com/leasegate/leasegate/workspace"
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

// sessionOwner is who a hook call acts as.
type sessionOwner struct {
	// key is the session's own name (ownerName): its state, the record
	// of its registration included, is kept under it.
	key string
	// name is the owner the call acts as: key, or the owner the
	// coordinator joined the session to (registration.ActsAs).
	name     string
	explicit bool // Config.Owner: registered by its sidecar, not by the hook
}

// owner returns who a call in ws acts as: the session's own name, or the
// owner its registration joined.
func (h *Handler) owner(ws *workspace.Workspace, ev Event) (sessionOwner, error) {
	key, explicit, err := h.ownerName(ev)
	if err != nil {
		return sessionOwner{}, err
	}
	o := sessionOwner{key: key, name: key, explicit: explicit}
	if r, ok := h.session(ws, key).registration(); ok && r.ActsAs != "" && !explicit {
		o.name = r.ActsAs
	}
	return o, nil
}

// HookHeartbeatTTL is how long a session whose agent process cannot be
// found may go without a hook call before the coordinator judges it dead:
// its hook calls are its only heartbeats, and an agent may think or run a
// long command for minutes between two.
const HookHeartbeatTTL = 15 * time.Minute

// agentOwner is the owner record of a session: its name and the agent's
// process as liveness handle (and, for the coordinator, the root of the
// processes that act as this owner), so the session's leases go when the
// agent dies. The agent is found by what it is (see findAgent); where it
// cannot be, the owner has no pid and is judged by its hook calls as
// heartbeats, never declared dead because a wrapper exited. The process's
// start time comes from the session's last registration when the same
// process (pid, boot and start in clock ticks, one read of /proc) made it:
// liveness.ProcessStart reads /proc/cpuinfo and more the first time, a
// millisecond of every call.
func agentOwner(a Agent, transcript string, last registration, name string) registration {
	r := registration{Owner: gate.Owner{Name: name}}
	r.Owner.Host, _ = os.Hostname()
	agent, found := findAgent(a, os.Getppid(), transcript)
	if !found {
		r.HeartbeatTTL = HookHeartbeatTTL
		return r
	}
	r.Agent, r.Owner.PID = agent, agent.PID
	if l := last.Agent; r.Agent.known() && l.PID == r.Agent.PID && l.Boot == r.Agent.Boot && l.Ticks == r.Agent.Ticks {
		r.Owner.StartTime, r.Agent.StartTime = l.StartTime, l.StartTime
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

// maxAgentDepth bounds the walk up from a hook to its agent: shells,
// wrappers (timeout, env, nice, npx, a user's script) and the agent's own
// helpers sit in between, never this many.
const maxAgentDepth = 32

// findAgent walks up from pid to the nearest process that is agent a
// (isAgent), else to the nearest that holds the session's transcript
// open (Codex keeps its rollout file open all session). It does not take
// the first process that is not a shell: a hook run through a wrapper
// would take the wrapper, which exits with the call.
func findAgent(a Agent, pid int, transcript string) (agentProc, bool) {
	if p, ok := walkUp(pid, func(pid int, st stat) bool { return isAgent(a, pid, st.comm) }); ok {
		return p, true
	}
	if transcript == "" {
		return agentProc{}, false
	}
	want := resolved(transcript)
	return walkUp(pid, func(pid int, _ stat) bool { return holds(pid, want) })
}

// walkUp returns the nearest process from pid up that is, by is.
func walkUp(pid int, is func(int, stat) bool) (agentProc, bool) {
	for i := 0; i < maxAgentDepth && pid > 1; i++ {
		st, err := procStat(pid)
		if err != nil {
			return agentProc{}, false
		}
		if is(pid, st) {
			p := agentProc{PID: pid}
			if boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
				p.Boot, p.Ticks = string(bytes.TrimSpace(boot)), st.ticks
			}
			return p, true
		}
		pid = st.ppid
	}
	return agentProc{}, false
}

// holds reports whether process pid has the file path open.
func holds(pid int, path string) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if target, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && target == path {
			return true
		}
	}
	return false
}

// agentNames are the program names each agent runs as; agentScripts the
// names of the scripts a JavaScript runtime runs for it.
var (
	agentNames = map[Agent][]string{
		ClaudeCode: {"claude"},
		Codex:      {"codex"},
		Gemini:     {"gemini"},
		Cursor:     {"cursor-agent"},
	}
	agentScripts = map[Agent][]string{
		ClaudeCode: {"claude", "claude-code", "@anthropic-ai/claude-code"},
		Codex:      {"codex", "@openai/codex"},
		Gemini:     {"gemini", "gemini-cli", "@google/gemini-cli"},
		Cursor:     {"cursor-agent"},
	}
	jsRuntimes = map[string]bool{"node": true, "bun": true, "deno": true, "nodejs": true}
)

// isAgent reports whether process pid, named comm, is agent a: its
// program (command name or executable) is the agent's, or one named in
// LEASEGATE_AGENT_PROGRAM (comma-separated: an agent installed under
// another name), or it is a JavaScript runtime running the agent's script
// (npm installs).
func isAgent(a Agent, pid int, comm string) bool {
	exe := ""
	if target, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe"); err == nil {
		exe = filepath.Base(strings.TrimSuffix(target, " (deleted)"))
	}
	names := agentNames[a]
	if extra := os.Getenv(envname.AgentProgram); extra != "" {
		names = append(slices.Clone(names), strings.Split(extra, ",")...)
	}
	if slices.Contains(names, comm) || slices.Contains(names, exe) {
		return true
	}
	if !jsRuntimes[comm] && !jsRuntimes[exe] {
		return false
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	args := strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
	for i, arg := range args {
		if i == 0 || i > 3 || strings.HasPrefix(arg, "-") {
			continue
		}
		if scriptOf(a, arg) {
			return true
		}
	}
	return false
}

// scriptOf reports whether a script path is one of agent a's: its name
// without extension, or a directory of it, is the agent's.
func scriptOf(a Agent, path string) bool {
	for _, name := range agentScripts[a] {
		base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		if base == name || strings.Contains(path, "/"+name+"/") {
			return true
		}
	}
	return false
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
