package liveness

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/hashicorp/go-hclog"
	"github.com/shirou/gopsutil/v3/process"

	"github.com/leasegate/leasegate/gate"
)

// Subject is an owner to judge.
type Subject struct {
	// Owner is the lease owner, with its liveness handle (host, pid, start
	// time).
	Owner gate.Owner
	// LastHeartbeat is when the owner's sidecar last beat. Zero means the
	// owner does not heartbeat (e.g. a check-out made with the CLI).
	LastHeartbeat time.Time
	// Process is the owner's process as the coordinator identified it
	// itself (Identify, Watch); nil when it did not. It is judged instead
	// of Owner.PID, which stays as what the owner reported.
	Process *Watched
	// Unseen, when set, says why the owner's process cannot be seen from
	// here (a pid namespace this one does not contain): it is judged by
	// its heartbeat alone.
	Unseen string
	// TTL is how old the owner's heartbeat may be, when it named its own
	// (an agent's hook calls beat far less often than a sidecar); zero
	// means the evaluator's.
	TTL time.Duration
	// QuietSince, when set and LastHeartbeat is zero, is when the judge
	// began to listen for the owner's heartbeat (a coordinator restarted
	// since the owner registered: heartbeats are not in the ledger). An
	// owner judged by heartbeat that has not beaten for a whole TTL since
	// then is dead; before that it is unknown. Zero keeps "no heartbeat
	// recorded" unknown for ever (an owner that never beats).
	QuietSince time.Time
}

// ttl is the heartbeat TTL that applies to s.
func (e *Evaluator) ttl(s Subject) time.Duration {
	if s.TTL > 0 {
		return s.TTL
	}
	return e.cfg.TTL
}

// Evaluator judges owners by the rules in the package documentation. It
// holds no state between calls and is safe for concurrent use.
type Evaluator struct {
	cfg    Config
	clock  clock.Clock
	log    hclog.Logger
	lookup lookupFunc
}

// New returns an Evaluator for cfg, filling in what is left empty with its
// default. It fails if cfg is invalid or the hostname cannot be read.
func New(cfg Config) (*Evaluator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if cfg.Host == "" {
		host, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("liveness host: %w", err)
		}
		cfg.Host = host
	}
	e := &Evaluator{cfg: cfg, clock: cfg.Clock, log: cfg.Logger, lookup: lookupProcess}
	if e.clock == nil {
		e.clock = clock.New()
	}
	if e.log == nil {
		e.log = hclog.NewNullLogger()
	}
	e.log = e.log.Named("liveness")
	return e, nil
}

// Host is the hostname the evaluator takes for this machine.
func (e *Evaluator) Host() string { return e.cfg.Host }

// Evaluate judges s at now. CheckedAt is now in UTC.
func (e *Evaluator) Evaluate(s Subject, now time.Time) gate.Liveness {
	var v gate.Liveness
	switch {
	case s.Process != nil:
		v = e.byWatched(s, now)
	case s.Unseen != "":
		v = e.byHeartbeatBecause(s, now, s.Unseen)
	case e.isLocal(s.Owner):
		v = e.byPIDAndStart(s, now)
	default:
		v = e.byHeartbeat(s, now)
	}
	v.CheckedAt = now.UTC()
	e.log.Debug("owner judged", "owner", s.Owner.Name, "status", v.Status, "evidence", v.Evidence)
	return v
}

// Check judges s at the evaluator's clock's now.
func (e *Evaluator) Check(s Subject) gate.Liveness { return e.Evaluate(s, e.clock.Now()) }

func (e *Evaluator) isLocal(o gate.Owner) bool { return o.PID > 0 && o.Host == e.cfg.Host }

// byProcess judges an owner on this host by its process.
func (e *Evaluator) byProcess(s Subject, now time.Time) gate.Liveness {
	pid := s.Owner.PID
	st, err := e.lookup(pid)
	switch {
	case errors.Is(err, ErrProcessNotFound):
		return e.notFound(s, now)
	case err != nil:
		e.cfg.Descriptors.Note(err)
		return e.noteHeartbeat(verdict(gate.Unknown,
			fmt.Sprintf("process lookup failed, so not judged dead: %v", err)), s, now)
	case !e.sameStart(st.start, s.Owner.StartTime):
		return e.otherStart(s, st, now)
	case st.status == process.Zombie:
		return verdict(gate.Dead, fmt.Sprintf("pid %d is a zombie (state Z): it exited and was not yet reaped", pid))
	case st.status == process.Stop:
		return e.noteHeartbeat(verdict(gate.Stopped,
			fmt.Sprintf("pid %d stopped (state T), started at %s", pid, msTime(st.start))), s, now)
	}
	v := verdict(gate.Alive, fmt.Sprintf("pid %d running since %s (state %s)", pid, msTime(st.start), st.status))
	if s.Owner.StartTime == 0 {
		v.Evidence = append(v.Evidence, "owner registered no start time, so pid reuse was not checked")
	}
	return e.noteHeartbeat(v, s, now)
}

// sameStart reports whether a process created at got is the owner that
// registered want. An owner without a registered start time is taken to
// be its pid (conservative: a live owner is never called dead).
func (e *Evaluator) sameStart(got, want int64) bool {
	if want == 0 {
		return true
	}
	d := time.Duration(got-want) * time.Millisecond
	return d.Abs() <= StartSlack
}

// otherStart judges an owner whose pid is held by a process with another
// create time. That is pid reuse, unless the owner's heartbeat is within
// the TTL: heartbeats come from the owner itself, and a stepped wall clock
// moves every create time Linux reports, so conflicting evidence gives
// Unknown, never Dead.
func (e *Evaluator) otherStart(s Subject, st procState, now time.Time) gate.Liveness {
	v := verdict(gate.Dead, fmt.Sprintf("pid %d now belongs to a process started at %s, owner's started at %s",
		s.Owner.PID, msTime(st.start), msTime(s.Owner.StartTime)))
	if s.LastHeartbeat.IsZero() {
		return v
	}
	age := now.Sub(s.LastHeartbeat)
	if age > e.ttl(s) {
		v.Evidence = append(v.Evidence, fmt.Sprintf("the owner's last heartbeat at %s, %s ago, is older than the ttl %s too",
			rfc3339(s.LastHeartbeat), age, e.ttl(s)))
		return v
	}
	v.Status = gate.Unknown
	v.Evidence = append(v.Evidence, fmt.Sprintf(
		"but the owner's last heartbeat at %s, %s ago, is within the ttl %s: a stepped wall clock, not pid reuse, may explain the start times",
		rfc3339(s.LastHeartbeat), age, e.ttl(s)))
	return v
}

// noteHeartbeat adds a stale heartbeat to the evidence of a verdict that
// the process settled: the verdict stands.
func (e *Evaluator) noteHeartbeat(v gate.Liveness, s Subject, now time.Time) gate.Liveness {
	age := now.Sub(s.LastHeartbeat)
	if s.LastHeartbeat.IsZero() || age <= e.ttl(s) {
		return v
	}
	note := fmt.Sprintf("heartbeat stale: last at %s, %s ago, older than the ttl %s", rfc3339(s.LastHeartbeat), age, e.ttl(s))
	if v.Status != gate.Unknown {
		note += "; the process is there, so the owner is not dead"
	}
	v.Evidence = append(v.Evidence, note)
	return v
}

func verdict(s gate.LivenessStatus, evidence ...string) gate.Liveness {
	return gate.Liveness{Status: s, Evidence: evidence}
}

// msTime formats a create time in ms since the epoch as UTC.
func msTime(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339Nano) }

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }
