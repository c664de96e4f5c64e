package api

import (
	"bytes"
	"encoding/json"
	"math"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/jsonenc"
)

// The hot path's answers and requests decoded without reflection: a lease
// answer is most of what a client does per call. Each decoder reads the
// canonical form the server writes; on anything else it hands the whole
// input to encoding/json, so the result (or the error) is always the one
// encoding/json gives for a zero value.

// decodeResult decodes a Mutate answer into out, a zero value.
func decodeResult(data []byte, out *leasegate.Result) error {
	s := newScan(data)
	var r leasegate.Result
	s.object(func(k []byte) {
		switch string(k) {
		case "outcome":
			r.Outcome = leasegate.Outcome(s.word())
		case "reason":
			r.Reason = gate.Reason(s.word())
		case "message":
			r.Message = s.str()
		case "leases":
			r.Leases = leases(&s)
		case "holder":
			r.Holder = leaseInto(&s, r.Holder)
		default: // contention and blocker views are rare: encoding/json reads them
			s.Fail()
		}
	})
	return settle(&s, data, out, &r)
}

// decodeLeaseResult decodes a lease answer into out, a zero value.
func decodeLeaseResult(data []byte, out *leasegate.LeaseResult) error {
	s := newScan(data)
	var r leasegate.LeaseResult
	s.object(func(k []byte) {
		switch string(k) {
		case "decision":
			decision(&s, &r.Decision)
		case "leases":
			r.Leases = leases(&s)
		default:
			s.Fail()
		}
	})
	return settle(&s, data, out, &r)
}

// settle stores a fast decode, or decodes data with encoding/json.
func settle[T any](s *scan, data []byte, out, fast *T) error {
	s.End()
	if s.Failed() {
		return json.Unmarshal(data, out)
	}
	*out = *fast
	return nil
}

func decision(s *scan, d *gate.Decision) {
	s.object(func(k []byte) {
		switch string(k) {
		case "granted":
			d.Granted = s.boolean()
		case "reason":
			d.Reason = gate.Reason(s.word())
		case "message":
			d.Message = s.str()
		case "holder":
			d.Holder = leaseInto(s, d.Holder)
		case "conflicts":
			d.Conflicts = leases(s)
		case "lease":
			d.Lease = leaseInto(s, d.Lease)
		case "covered":
			d.Covered = leases(s)
		case "remaining_ns":
			d.Remaining = timeDuration(s.int())
		default:
			s.Fail()
		}
	})
}

func leases(s *scan) []gate.Lease {
	out := []gate.Lease{}
	s.array(func() {
		out = append(out, gate.Lease{})
		lease(s, &out[len(out)-1])
	})
	return out
}

// leaseInto decodes into *p, allocating it if nil, as encoding/json does.
func leaseInto(s *scan, p *gate.Lease) *gate.Lease {
	if p == nil {
		p = new(gate.Lease)
	}
	lease(s, p)
	return p
}

func lease(s *scan, l *gate.Lease) {
	s.object(func(k []byte) {
		switch string(k) {
		case "id":
			l.ID = gate.LeaseID(s.str())
		case "owner":
			owner(s, &l.Owner)
		case "kind":
			l.Kind = gate.Kind(s.word())
		case "scope":
			scope(s, &l.Scope)
		case "state":
			l.State = gate.State(s.word())
		default:
			leaseMore(s, l, k)
		}
	})
}

func leaseMore(s *scan, l *gate.Lease, k []byte) {
	switch string(k) {
	case "fencing_token":
		l.FencingToken = s.uint(math.MaxUint64)
	case "acquired_at":
		l.AcquiredAt = s.time()
	case "last_heartbeat_at":
		l.LastHeartbeatAt = s.time()
	case "expires_at":
		l.ExpiresAt = s.time()
	case "renewal_count":
		l.RenewalCount = uint32(s.uint(math.MaxUint32))
	case "reminder_sent":
		l.ReminderSent = s.boolean()
	case "release_reason":
		l.ReleaseReason = s.str()
	case "ended_by":
		l.EndedBy = s.str()
	case "terminated_at":
		l.TerminatedAt = s.time()
	case "new_dir":
		l.NewDir = s.boolean()
	default:
		s.Fail()
	}
}

func owner(s *scan, o *gate.Owner) {
	s.object(func(k []byte) {
		switch string(k) {
		case "name":
			o.Name = s.str()
		case "host":
			o.Host = s.str()
		case "pid":
			o.PID = int(s.int())
		case "start_time":
			o.StartTime = s.int()
		default:
			s.Fail()
		}
	})
}

func scope(s *scan, sc *gate.Scope) {
	s.object(func(k []byte) {
		switch string(k) {
		case "type":
			sc.Type = gate.ScopeType(s.word())
		case "paths":
			sc.Paths = s.strings()
		case "files":
			sc.Files = files(s)
		default:
			s.Fail()
		}
	})
}

func files(s *scan) []gate.File {
	out := []gate.File{}
	s.array(func() {
		var f gate.File
		s.object(func(k []byte) {
			switch string(k) {
			case "path":
				f.Path = s.str()
			case "dev":
				f.Dev = s.uint(math.MaxUint64)
			case "ino":
				f.Ino = s.uint(math.MaxUint64)
			default:
				s.Fail()
			}
		})
		out = append(out, f)
	})
	return out
}

// decodeLeaseRequest decodes a lease request strictly (as decodeJSON
// does: unknown fields and trailing data are errors).
func decodeLeaseRequest(body []byte, out *leasegate.LeaseRequest) error {
	s := newScan(body)
	var r leasegate.LeaseRequest
	s.object(func(k []byte) {
		switch string(k) {
		case "op":
			r.Op = gate.Op(s.word())
		case "owner":
			owner(&s, &r.Owner)
		case "scope":
			scope(&s, &r.Scope)
		case "ttl":
			r.TTL = timeDuration(s.int())
		case "lease_id":
			r.LeaseID = gate.LeaseID(s.str())
		case "token":
			r.Token = s.uint(math.MaxUint64)
		case "reason":
			r.Reason = s.str()
		default:
			s.Fail()
		}
	})
	return settleStrict(&s, body, out, &r)
}

// decodeMutateRequest decodes a mutation request strictly.
func decodeMutateRequest(body []byte, out *leasegate.MutateRequest) error {
	s := newScan(body)
	var r leasegate.MutateRequest
	s.object(func(k []byte) {
		switch string(k) {
		case "owner":
			r.Owner = s.str()
		case "op":
			r.Op = s.str()
		case "paths":
			r.Paths = s.strings()
		case "files":
			r.Files = files(&s)
		case "try":
			r.Try = s.boolean()
		case "holds_git_lock":
			r.HoldsGitLock = s.str()
		default:
			s.Fail()
		}
	})
	return settleStrict(&s, body, out, &r)
}

// settleStrict stores a fast decode, or decodes body with decodeJSON.
func settleStrict[T any](s *scan, body []byte, out, fast *T) error {
	s.End()
	if s.Failed() {
		return decodeJSON(bytes.NewReader(body), out)
	}
	*out = *fast
	return nil
}

// word is str for a field that mostly holds one of a few names (a kind, a
// state, a reason): a known name costs no allocation.
func (s *scan) word() string {
	s.SkipSpace()
	return s.Word(knownWords)
}

// knownWords are the names word returns without allocating.
var knownWords = jsonenc.NewWords(
	string(gate.KindAuto), string(gate.KindCheckout),
	string(gate.ScopeFile), string(gate.ScopeSparse), string(gate.ScopeFull),
	string(gate.StateActive), string(gate.StateReleased), string(gate.StateExpired),
	string(gate.StateEvicted), string(gate.StateCompleted), string(gate.StateReclaimed),
	string(gate.OpAcquire), string(gate.OpRenew), string(gate.OpRelease),
	string(gate.OpValidate), string(gate.OpCheckin), string(gate.OpEvict),
	string(gate.ReasonOK), string(gate.ReasonHeldByOther),
	string(leasegate.Granted), string(leasegate.Contended), string(leasegate.Blocked),
	string(leasegate.Denied), string(leasegate.Aborted),
)
