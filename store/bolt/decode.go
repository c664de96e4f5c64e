package bolt

import (
	"math"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/jsonenc"
)

// parseEvent reads an event in the layout the encoder writes (codec.go and
// internal/jsonenc: fields in declaration order, optional ones left out,
// strings without escapes) without reflection. It gives up (ok false) on
// anything else, and the caller hands the value to encoding/json, so an
// event it reads is the event encoding/json would read: decode_test.go
// holds the two side by side, on what the encoder writes and on damaged
// copies of it. Replaying a long ledger is mostly this.
func parseEvent(v []byte) (e gate.Event, ok bool) {
	p := parser{jsonenc.NewScanner(v)}
	p.Lit(`{"seq":`)
	e.Seq = p.Uint(math.MaxUint64)
	p.Lit(`,"type":`)
	e.Type = gate.EventType(p.str())
	p.Lit(`,"at":`)
	e.At = p.Time()
	if p.Opt(`,"actor":`) {
		e.Actor = p.str()
	}
	if p.Opt(`,"lease_id":`) {
		e.LeaseID = gate.LeaseID(p.str())
	}
	if p.Opt(`,"lease":`) {
		e.Lease = p.lease()
	}
	if p.Opt(`,"expires_at":`) {
		e.ExpiresAt = p.Time()
	}
	if p.Opt(`,"reason":`) {
		e.Reason = p.str()
	}
	if p.Opt(`,"path":`) {
		e.Path = p.str()
	}
	if p.Opt(`,"by":`) {
		e.By = p.operator()
	}
	if p.Opt(`,"data":`) {
		e.Data = p.Trailing()
	}
	p.Lit(`}`)
	p.End()
	return e, !p.Failed()
}

// lease reads a lease as jsonenc.Lease writes it. A field the encoder does
// not know of yet makes the whole event go to encoding/json.
func (p *parser) lease() *gate.Lease {
	l := new(gate.Lease)
	p.Lit(`{"id":`)
	l.ID = gate.LeaseID(p.str())
	p.Lit(`,"owner":{"name":`)
	l.Owner.Name = p.str()
	if p.Opt(`,"host":`) {
		l.Owner.Host = p.str()
	}
	if p.Opt(`,"pid":`) {
		l.Owner.PID = int(p.Int(math.MinInt, math.MaxInt))
	}
	if p.Opt(`,"start_time":`) {
		l.Owner.StartTime = p.Int(math.MinInt64, math.MaxInt64)
	}
	p.Lit(`},"kind":`)
	l.Kind = gate.Kind(p.str())
	p.Lit(`,"scope":{"type":`)
	l.Scope.Type = gate.ScopeType(p.str())
	if p.Opt(`,"paths":[`) {
		for first := true; !p.Failed() && (first || p.Opt(`,`)); first = false {
			l.Scope.Paths = append(l.Scope.Paths, p.str())
		}
		p.Lit(`]`)
	}
	if p.Opt(`,"files":[`) {
		l.Scope.Files = p.files()
	}
	p.Lit(`},"state":`)
	l.State = gate.State(p.str())
	p.Lit(`,"fencing_token":`)
	l.FencingToken = p.Uint(math.MaxUint64)
	p.Lit(`,"acquired_at":`)
	l.AcquiredAt = p.Time()
	p.Lit(`,"last_heartbeat_at":`)
	l.LastHeartbeatAt = p.Time()
	if p.Opt(`,"expires_at":`) {
		l.ExpiresAt = p.Time()
	}
	if p.Opt(`,"renewal_count":`) {
		l.RenewalCount = uint32(p.Uint(math.MaxUint32))
	}
	if p.Opt(`,"reminder_sent":`) {
		switch {
		case p.Opt(`true`):
			l.ReminderSent = true
		case !p.Opt(`false`):
			p.Fail()
		}
	}
	if p.Opt(`,"release_reason":`) {
		l.ReleaseReason = p.str()
	}
	if p.Opt(`,"ended_by":`) {
		l.EndedBy = p.str()
	}
	if p.Opt(`,"terminated_at":`) {
		l.TerminatedAt = p.Time()
	}
	if p.Opt(`,"new_dir":`) {
		l.NewDir = p.Opt(`true`)
		if !l.NewDir && !p.Opt(`false`) {
			p.Fail()
		}
	}
	p.Lit(`}`)
	return l
}

// operator reads an operator as jsonenc.Operator writes it.
func (p *parser) operator() *gate.Operator {
	o := new(gate.Operator)
	p.Lit(`{`)
	if p.Opt(`"pid":`) {
		o.PID = int(p.Int(math.MinInt, math.MaxInt))
		p.Lit(`,`)
	}
	if p.Opt(`"comm":`) {
		o.Comm = p.str()
		p.Lit(`,`)
	}
	p.Lit(`"uid":`)
	o.UID = uint32(p.Uint(math.MaxUint32))
	p.Lit(`,"source":`)
	o.Source = p.str()
	p.Lit(`}`)
	return o
}

// files reads the rest of a list of file identities as jsonenc.Files
// writes it, its "[" already read.
func (p *parser) files() []gate.File {
	var fs []gate.File
	for first := true; !p.Failed() && (first || p.Opt(`,`)); first = false {
		var f gate.File
		p.Lit(`{"path":`)
		f.Path = p.str()
		p.Lit(`,"dev":`)
		f.Dev = p.Uint(math.MaxUint64)
		p.Lit(`,"ino":`)
		f.Ino = p.Uint(math.MaxUint64)
		p.Lit(`}`)
		fs = append(fs, f)
	}
	p.Lit(`]`)
	return fs
}

// parser is jsonenc.Scanner with the lease vocabulary interned.
type parser struct {
	jsonenc.Scanner
}

// str reads a quoted string that needs no unescaping. Strings of the lease
// vocabulary come back as the constants, without allocating.
func (p *parser) str() string { return p.Word(vocabulary) }

// vocabulary maps the strings that most events repeat to one copy each.
var vocabulary = jsonenc.NewWords(
	string(gate.EventGranted), string(gate.EventRenewed), string(gate.EventReleased), string(gate.EventCompleted),
	string(gate.EventExpired), string(gate.EventEvicted), string(gate.EventReclaimed), string(gate.EventReminded),
	string(gate.EventOwnerRegistered), string(gate.EventOwnerStopped), string(gate.EventOwnerGone),
	string(gate.EventContention), string(gate.EventRetry), string(gate.EventContentionWoken), string(gate.EventContentionGone), string(gate.EventContentionResolved), string(gate.EventBlockerOpened), string(gate.EventBlockerResolved), string(gate.EventBlockerRetried),
	string(gate.EventUngatedWrite), string(gate.EventNotice), string(gate.EventNoticeUndelivered),
	string(gate.KindAuto), string(gate.KindCheckout), string(gate.ScopeFile), string(gate.ScopeSparse), string(gate.ScopeFull),
	string(gate.StateActive), string(gate.StateReleased), string(gate.StateExpired), string(gate.StateEvicted),
	string(gate.StateCompleted), string(gate.StateReclaimed), "coordinator",
)
