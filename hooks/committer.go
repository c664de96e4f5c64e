package hooks

import (
	"os"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
)

// committerOf names who commits, by the rule the coordinator applies to
// every request: the registered owner whose root process (a hook
// session's agent, a run worker's sidecar) is the nearest of this
// process's ancestors. A git hook run by an agent's own `git commit` thus
// knows the session whatever the agent (Codex, Gemini CLI and Cursor set
// no variable naming it). Without such an ancestor it is claimed: the
// name LEASEGATE_AS or CLAUDE_CODE_SESSION_ID gave, or nobody.
func committerOf(st leasegate.Status, claimed string) string {
	chain, err := liveness.Ancestry(os.Getpid())
	if err != nil {
		return claimed
	}
	host, _ := os.Hostname()
	for _, p := range chain {
		for _, o := range st.Owners {
			if o.PID == p.PID && o.PID > 0 && (o.Host == "" || o.Host == host) && sameStart(o.StartTime, p.StartTime) &&
				o.Liveness.Status != gate.Dead {
				return o.Name
			}
		}
	}
	return claimed
}

// sameStart compares a registered start time with a process's, with the
// slack liveness allows.
func sameStart(registered, actual int64) bool {
	d := time.Duration(registered-actual) * time.Millisecond
	return registered != 0 && d.Abs() <= liveness.StartSlack
}
