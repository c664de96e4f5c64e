package liveness

import (
	"fmt"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// byHeartbeat judges an owner that is not a process of this host by its
// heartbeat alone.
func (e *Evaluator) byHeartbeat(s Subject, now time.Time) gate.Liveness {
	return e.byHeartbeatBecause(s, now, e.whyHeartbeat(s.Owner))
}

// byHeartbeatBecause judges an owner by its heartbeat alone, for the
// reason why.
func (e *Evaluator) byHeartbeatBecause(s Subject, now time.Time, why string) gate.Liveness {
	if s.LastHeartbeat.IsZero() {
		return e.quiet(s, now, why)
	}
	age := now.Sub(s.LastHeartbeat)
	if age <= e.ttl(s) {
		return verdict(gate.Alive, why, fmt.Sprintf("last heartbeat at %s, %s ago, within the ttl %s",
			rfc3339(s.LastHeartbeat), age, e.ttl(s)))
	}
	return verdict(gate.Dead, why, fmt.Sprintf("last heartbeat at %s, %s ago, older than the ttl %s",
		rfc3339(s.LastHeartbeat), age, e.ttl(s)))
}

// whyHeartbeat says why an owner is judged by heartbeat.
func (e *Evaluator) whyHeartbeat(o gate.Owner) string {
	switch {
	case o.PID <= 0:
		return "owner has no pid: judged by heartbeat"
	case o.Host == "":
		return "owner has no host: judged by heartbeat"
	}
	return fmt.Sprintf("owner on host %s, not this host %s: judged by heartbeat", o.Host, e.cfg.Host)
}

// quiet judges an owner with no heartbeat recorded: unknown, unless the
// judge has listened for a whole TTL since QuietSince and heard none.
// While unknown, the evidence says when it will be judged dead, so an
// operator reading status knows the owner's leases are not kept forever.
func (e *Evaluator) quiet(s Subject, now time.Time, why string) gate.Liveness {
	if s.QuietSince.IsZero() {
		return verdict(gate.Unknown, why, "no heartbeat recorded")
	}
	age := now.Sub(s.QuietSince)
	if age <= e.ttl(s) {
		return verdict(gate.Unknown, why, fmt.Sprintf("no heartbeat since the coordinator started at %s, %s ago, within the ttl %s; dead at %s unless it beats",
			rfc3339(s.QuietSince), age, e.ttl(s), rfc3339(s.QuietSince.Add(e.ttl(s)))))
	}
	return verdict(gate.Dead, why, fmt.Sprintf("no heartbeat since the coordinator started at %s, %s ago, older than the ttl %s",
		rfc3339(s.QuietSince), age, e.ttl(s)))
}
