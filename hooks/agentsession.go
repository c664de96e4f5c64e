package hooks

import (
	"os"
	"strconv"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
)

// AgentSession is the owner record of the agent session a process runs
// in, found by the same detection the hooks use for a session's liveness
// handle: another adapter of that session (the MCP server an agent
// starts) acts for the same owner.
type AgentSession struct {
	Agent Agent
	// Owner is the record to register: the agent's process as liveness
	// handle, named as the hooks name the session when the environment
	// says which session it is (CLAUDE_CODE_SESSION_ID, GEMINI_SESSION_ID),
	// else after the agent's process ("cc-pid-4242").
	Owner gate.Owner
}

// sessionEnv names the variable that holds an agent's session id in the
// processes it starts, where it sets one.
var sessionEnv = map[Agent]string{ClaudeCode: "CLAUDE_CODE_SESSION_ID", Gemini: "GEMINI_SESSION_ID"}

// FindAgentSession walks up from pid to the nearest process of any
// supported agent and returns its session's owner record. Without one,
// found is false and the record names pid itself (the process that
// started the caller) as handle, "mcp-pid-PID".
func FindAgentSession(pid int, getenv func(string) string) (s AgentSession, found bool) {
	var agent Agent
	p, found := walkUp(pid, func(pid int, st stat) bool {
		for _, a := range Agents() {
			if isAgent(a, pid, st.comm) {
				agent = a
				return true
			}
		}
		return false
	})
	s.Owner.Host, _ = os.Hostname()
	if !found {
		s.Owner.Name, s.Owner.PID = "mcp-pid-"+strconv.Itoa(pid), pid
	} else {
		s.Agent, s.Owner.PID, s.Owner.Name = agent, p.PID, ownerPrefix[agent]+"pid-"+strconv.Itoa(p.PID)
		if id := getenv(sessionEnv[agent]); sessionEnv[agent] != "" && id != "" {
			s.Owner.Name = ownerPrefix[agent] + id
		}
	}
	if start, err := liveness.ProcessStart(s.Owner.PID); err == nil {
		s.Owner.StartTime = start
	}
	return s, found
}
