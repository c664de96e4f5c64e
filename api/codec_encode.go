package api

import (
	"encoding/json"
	"errors"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
)

// marshalAnswer encodes an answer body. Lease answers are written without
// reflection, byte for byte as encoding/json writes them (codec_test.go
// holds the two side by side); everything else goes to encoding/json.
func marshalAnswer(v any) ([]byte, error) {
	return appendAnswerBody(nil, v)
}

// appendAnswerBody appends what marshalAnswer returns to dst; on error dst
// is returned as it was.
func appendAnswerBody(dst []byte, v any) ([]byte, error) {
	start := len(dst)
	if cap(dst)-start < 512 {
		dst = append(make([]byte, 0, start+1024), dst...)
	}
	b, err := dst, errSlowPath
	switch v := v.(type) {
	case coordinator.LeaseResult:
		b, err = appendLeaseResult(b, v)
	case coordinator.Result:
		if v.Contention == nil && v.Blocker == nil {
			b, err = appendResult(b, v)
		}
	}
	if errors.Is(err, errSlowPath) {
		var body []byte
		body, err = json.Marshal(v)
		b = append(b[:start], body...)
	}
	if err != nil {
		return dst[:start], err
	}
	return b, nil
}

// marshalRequest encodes a request body. Lease and mutation requests are
// written without reflection, byte for byte as encoding/json writes them;
// everything else goes to encoding/json.
func marshalRequest(v any) ([]byte, error) {
	var b []byte
	var err error
	switch v := v.(type) {
	case coordinator.LeaseRequest:
		b, err = appendLeaseRequest(make([]byte, 0, 256), v)
	case coordinator.MutateRequest:
		b, err = appendMutateRequest(make([]byte, 0, 256), v)
	default:
		return json.Marshal(v)
	}
	if errors.Is(err, errSlowPath) {
		return json.Marshal(v)
	}
	return b, err
}

func appendLeaseRequest(b []byte, r coordinator.LeaseRequest) ([]byte, error) {
	b = append(b, `{"op":`...)
	b, err := appendStr(b, string(r.Op))
	b = append(b, `,"owner":`...)
	b, err = appendOwner(b, r.Owner, err)
	if r.Scope.Type != "" || r.Scope.Paths != nil {
		b = append(b, `,"scope":`...)
		b, err = appendScope(b, r.Scope, err)
	}
	if r.TTL != 0 {
		b = append(b, `,"ttl":`...)
		b = strconv.AppendInt(b, int64(r.TTL), 10)
	}
	if r.LeaseID != "" {
		b = append(b, `,"lease_id":`...)
		b, err = appendStrAfter(b, string(r.LeaseID), err)
	}
	if r.Token != 0 {
		b = append(b, `,"token":`...)
		b = strconv.AppendUint(b, r.Token, 10)
	}
	if r.Reason != "" {
		b = append(b, `,"reason":`...)
		b, err = appendStrAfter(b, r.Reason, err)
	}
	return append(b, '}'), err
}

func appendMutateRequest(b []byte, r coordinator.MutateRequest) ([]byte, error) {
	b = append(b, `{"owner":`...)
	b, err := appendStr(b, r.Owner)
	b = append(b, `,"op":`...)
	b, err = appendStrAfter(b, r.Op, err)
	b = append(b, `,"paths":`...)
	if r.Paths == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, p := range r.Paths {
			if i > 0 {
				b = append(b, ',')
			}
			b, err = appendStrAfter(b, p, err)
		}
		b = append(b, ']')
	}
	if r.Try {
		b = append(b, `,"try":true`...)
	}
	return append(b, '}'), err
}

// errSlowPath sends a value to encoding/json: it holds a string that needs
// escaping or a time outside the years 0 to 9999.
var errSlowPath = errors.New("not on the fast path")

func appendLeaseResult(b []byte, r coordinator.LeaseResult) ([]byte, error) {
	b = append(b, `{"decision":`...)
	b, err := appendDecision(b, r.Decision)
	if err == nil && len(r.Leases) > 0 {
		b = append(b, `,"leases":`...)
		b, err = appendLeases(b, r.Leases)
	}
	return append(b, '}'), err
}

func appendResult(b []byte, r coordinator.Result) ([]byte, error) {
	b = append(b, `{"outcome":`...)
	b, err := appendStr(b, string(r.Outcome))
	b = append(b, `,"reason":`...)
	b, err = appendStrAfter(b, string(r.Reason), err)
	if r.Message != "" {
		b = append(b, `,"message":`...)
		b, err = appendStrAfter(b, r.Message, err)
	}
	if len(r.Leases) > 0 && err == nil {
		b = append(b, `,"leases":`...)
		b, err = appendLeases(b, r.Leases)
	}
	if r.Holder != nil && err == nil {
		b = append(b, `,"holder":`...)
		b, err = appendLease(b, *r.Holder)
	}
	return append(b, '}'), err
}

func appendDecision(b []byte, d gate.Decision) ([]byte, error) {
	b = append(b, `{"granted":`...)
	b = strconv.AppendBool(b, d.Granted)
	b = append(b, `,"reason":`...)
	b, err := appendStr(b, string(d.Reason))
	if d.Message != "" {
		b = append(b, `,"message":`...)
		b, err = appendStrAfter(b, d.Message, err)
	}
	b, err = appendLeaseField(b, `,"holder":`, d.Holder, err)
	b, err = appendLeasesField(b, `,"conflicts":`, d.Conflicts, err)
	b, err = appendLeaseField(b, `,"lease":`, d.Lease, err)
	b, err = appendLeasesField(b, `,"covered":`, d.Covered, err)
	if d.Remaining != 0 {
		b = append(b, `,"remaining":`...)
		b = strconv.AppendInt(b, int64(d.Remaining), 10)
	}
	return append(b, '}'), err
}

// appendLeaseField writes an omitempty *gate.Lease field.
func appendLeaseField(b []byte, name string, l *gate.Lease, err error) ([]byte, error) {
	if l == nil || err != nil {
		return b, err
	}
	return appendLease(append(b, name...), *l)
}

// appendLeasesField writes an omitempty []gate.Lease field.
func appendLeasesField(b []byte, name string, ls []gate.Lease, err error) ([]byte, error) {
	if len(ls) == 0 || err != nil {
		return b, err
	}
	return appendLeases(append(b, name...), ls)
}

func appendLeases(b []byte, ls []gate.Lease) ([]byte, error) {
	b = append(b, '[')
	var err error
	for i := range ls {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = appendLease(b, ls[i]); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

func appendLease(b []byte, l gate.Lease) ([]byte, error) {
	b = append(b, `{"id":`...)
	b, err := appendStr(b, string(l.ID))
	b = append(b, `,"owner":`...)
	b, err = appendOwner(b, l.Owner, err)
	b = append(b, `,"kind":`...)
	b, err = appendStrAfter(b, string(l.Kind), err)
	b = append(b, `,"scope":`...)
	b, err = appendScope(b, l.Scope, err)
	b = append(b, `,"state":`...)
	b, err = appendStrAfter(b, string(l.State), err)
	b = append(b, `,"fencing_token":`...)
	b = strconv.AppendUint(b, l.FencingToken, 10)
	b = append(b, `,"acquired_at":`...)
	b, err = appendTime(b, l.AcquiredAt, err)
	b = append(b, `,"last_heartbeat_at":`...)
	b, err = appendTime(b, l.LastHeartbeatAt, err)
	if !l.ExpiresAt.IsZero() {
		b = append(b, `,"expires_at":`...)
		b, err = appendTime(b, l.ExpiresAt, err)
	}
	b, err = appendLeaseEnd(b, l, err)
	return append(b, '}'), err
}

// appendLeaseEnd writes the omitempty tail of a lease.
func appendLeaseEnd(b []byte, l gate.Lease, err error) ([]byte, error) {
	if l.RenewalCount != 0 {
		b = append(b, `,"renewal_count":`...)
		b = strconv.AppendUint(b, uint64(l.RenewalCount), 10)
	}
	if l.ReminderSent {
		b = append(b, `,"reminder_sent":true`...)
	}
	if l.ReleaseReason != "" {
		b = append(b, `,"release_reason":`...)
		b, err = appendStrAfter(b, l.ReleaseReason, err)
	}
	if l.EndedBy != "" {
		b = append(b, `,"ended_by":`...)
		b, err = appendStrAfter(b, l.EndedBy, err)
	}
	if !l.TerminatedAt.IsZero() {
		b = append(b, `,"terminated_at":`...)
		b, err = appendTime(b, l.TerminatedAt, err)
	}
	return b, err
}

func appendOwner(b []byte, o gate.Owner, err error) ([]byte, error) {
	b = append(b, `{"name":`...)
	b, err = appendStrAfter(b, o.Name, err)
	if o.Host != "" {
		b = append(b, `,"host":`...)
		b, err = appendStrAfter(b, o.Host, err)
	}
	if o.PID != 0 {
		b = append(b, `,"pid":`...)
		b = strconv.AppendInt(b, int64(o.PID), 10)
	}
	if o.StartTime != 0 {
		b = append(b, `,"start_time":`...)
		b = strconv.AppendInt(b, o.StartTime, 10)
	}
	return append(b, '}'), err
}

func appendScope(b []byte, sc gate.Scope, err error) ([]byte, error) {
	b = append(b, `{"type":`...)
	b, err = appendStrAfter(b, string(sc.Type), err)
	if len(sc.Paths) > 0 {
		b = append(b, `,"paths":[`...)
		for i, p := range sc.Paths {
			if i > 0 {
				b = append(b, ',')
			}
			b, err = appendStrAfter(b, p, err)
		}
		b = append(b, ']')
	}
	return append(b, '}'), err
}

// appendStrAfter appends s unless an earlier step already failed.
func appendStrAfter(b []byte, s string, err error) ([]byte, error) {
	if err != nil {
		return b, err
	}
	return appendStr(b, s)
}

// appendStr quotes s when encoding/json would write it unescaped: printable
// ASCII other than " \ < > &, and valid UTF-8 other than U+2028 and U+2029.
func appendStr(b []byte, s string) ([]byte, error) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return b, errSlowPath
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' {
			return b, errSlowPath
		}
		i += size
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), nil
}

// appendTime writes t as time.Time's MarshalJSON does, for the times it
// writes without complaint: years 0 to 9999 and zones of whole minutes
// under a day.
func appendTime(b []byte, t time.Time, err error) ([]byte, error) {
	if err != nil {
		return b, err
	}
	_, off := t.Zone()
	if y := t.Year(); y < 0 || y > 9999 || off%60 != 0 || off <= -24*3600 || off >= 24*3600 {
		return b, errSlowPath
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), nil
}

func timeDuration(n int64) time.Duration { return time.Duration(n) }
