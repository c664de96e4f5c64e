package liveness

import (
	"fmt"
	"strings"
	"time"

	"github.com/shirou/gopsutil/v3/process"

	"github.com/leasegate/leasegate/gate"
)

// byWatched judges an owner by the process the coordinator identified:
// through its pidfd where it has one, else by its pid and create time.
func (e *Evaluator) byWatched(s Subject, now time.Time) gate.Liveness {
	w := s.Process
	if !w.HasPidfd() {
		o := s.Owner
		o.PID, o.StartTime = w.PID, w.StartTime
		v := e.byPIDAndStart(Subject{Owner: o, LastHeartbeat: s.LastHeartbeat}, now)
		v.Evidence[0] += reportedAs(s.Owner, w)
		if w.why != "" {
			v.Evidence[0] = strings.Replace(v.Evidence[0], "pid + start time:", "pid + start time ("+w.why+"):", 1)
		}
		return v
	}
	if w.Exited() {
		return e.exited(s)
	}
	st, err := e.lookup(w.PID)
	if w.Exited() { // between the two looks: the pid may be another's now
		return e.exited(s)
	}
	note := reportedAs(s.Owner, w)
	switch {
	case err != nil:
		e.cfg.Descriptors.Note(err)
		return e.noteHeartbeat(verdict(gate.Unknown,
			fmt.Sprintf("pidfd: pid %d%s has not exited, but its state could not be read: %v", w.PID, note, err)), s, now)
	case st.status == process.Stop:
		return e.noteHeartbeat(verdict(gate.Stopped,
			fmt.Sprintf("pidfd: pid %d%s stopped (state T), started at %s", w.PID, note, msTime(w.StartTime))), s, now)
	}
	return e.noteHeartbeat(verdict(gate.Alive,
		fmt.Sprintf("pidfd: pid %d%s running since %s (state %s)", w.PID, note, msTime(w.StartTime), st.status)), s, now)
}

// byPIDAndStart judges an owner by its pid and create time, and says so.
func (e *Evaluator) byPIDAndStart(s Subject, now time.Time) gate.Liveness {
	v := e.byProcess(s, now)
	v.Evidence[0] = "pid + start time: " + v.Evidence[0]
	return v
}

// exited is the verdict on an owner whose pidfd says its process exited:
// the process itself, never a later one with its pid, so no heartbeat can
// make it doubtful.
func (e *Evaluator) exited(s Subject) gate.Liveness {
	w := s.Process
	return verdict(gate.Dead, fmt.Sprintf("pidfd: pid %d%s exited (started at %s)", w.PID, reportedAs(s.Owner, w), msTime(w.StartTime)))
}

// notFound judges an owner whose pid no process has. That is death only
// when the owner does not say otherwise: a heartbeat within the TTL comes
// from the owner itself, whose pid may be one of another pid namespace.
func (e *Evaluator) notFound(s Subject, now time.Time) gate.Liveness {
	v := verdict(gate.Dead, fmt.Sprintf("pid %d not found on host %s", s.Owner.PID, e.cfg.Host))
	if s.LastHeartbeat.IsZero() {
		return v
	}
	age := now.Sub(s.LastHeartbeat)
	if age > e.cfg.TTL {
		v.Evidence = append(v.Evidence, fmt.Sprintf("heartbeat: last at %s, %s ago, older than the ttl %s too",
			rfc3339(s.LastHeartbeat), age, e.cfg.TTL))
		return v
	}
	v.Status = gate.Unknown
	v.Evidence = append(v.Evidence, fmt.Sprintf(
		"heartbeat: last at %s, %s ago, within the ttl %s: the pid may be one of another pid namespace, so not taken for death",
		rfc3339(s.LastHeartbeat), age, e.cfg.TTL))
	return v
}

// reportedAs notes the pid the owner registered when it differs from the
// one the coordinator sees (a worker in its own pid namespace).
func reportedAs(o gate.Owner, w *Watched) string {
	if o.PID == w.PID || o.PID == 0 {
		return ""
	}
	return fmt.Sprintf(" (registered as pid %d, in its own pid namespace)", o.PID)
}
