package bolt

import (
	"encoding/json"
	"errors"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/leasegate/leasegate/gate"
)

// appendEventJSON appends e as encoding/json's Encoder writes it (HTML
// escaping on), newline included. Events of the hot path (grants, renewals,
// releases: plain strings, no Data) are written without reflection, byte
// for byte as encoding/json would (codec_test.go holds the two side by
// side); any other event goes to encoding/json.
func appendEventJSON(b []byte, e *gate.Event) ([]byte, error) {
	start := len(b)
	b, err := appendEvent(b, e)
	if errors.Is(err, errSlowPath) {
		var v []byte
		v, err = json.Marshal(e)
		b = append(b[:start], v...)
	}
	if err != nil {
		return b[:start], err
	}
	return append(b, '\n'), nil
}

// errSlowPath sends an event to encoding/json: it carries Data, a string
// that needs escaping, or a time outside the years 0 to 9999.
var errSlowPath = errors.New("not on the fast path")

func appendEvent(b []byte, e *gate.Event) ([]byte, error) {
	if len(e.Data) > 0 {
		return b, errSlowPath
	}
	b = append(b, `{"seq":`...)
	b = strconv.AppendUint(b, e.Seq, 10)
	b = append(b, `,"type":`...)
	b, err := appendStr(b, string(e.Type))
	b = append(b, `,"at":`...)
	b, err = appendTime(b, e.At, err)
	b, err = appendStrField(b, `,"actor":`, e.Actor, err)
	b, err = appendStrField(b, `,"lease_id":`, string(e.LeaseID), err)
	if e.Lease != nil && err == nil {
		b = append(b, `,"lease":`...)
		b, err = appendLease(b, e.Lease)
	}
	if !e.ExpiresAt.IsZero() {
		b = append(b, `,"expires_at":`...)
		b, err = appendTime(b, e.ExpiresAt, err)
	}
	b, err = appendStrField(b, `,"reason":`, e.Reason, err)
	b, err = appendStrField(b, `,"path":`, e.Path, err)
	return append(b, '}'), err
}

func appendLease(b []byte, l *gate.Lease) ([]byte, error) {
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
	if l.RenewalCount != 0 {
		b = append(b, `,"renewal_count":`...)
		b = strconv.AppendUint(b, uint64(l.RenewalCount), 10)
	}
	if l.ReminderSent {
		b = append(b, `,"reminder_sent":true`...)
	}
	b, err = appendStrField(b, `,"release_reason":`, l.ReleaseReason, err)
	b, err = appendStrField(b, `,"ended_by":`, l.EndedBy, err)
	if !l.TerminatedAt.IsZero() {
		b = append(b, `,"terminated_at":`...)
		b, err = appendTime(b, l.TerminatedAt, err)
	}
	return append(b, '}'), err
}

func appendOwner(b []byte, o gate.Owner, err error) ([]byte, error) {
	b = append(b, `{"name":`...)
	b, err = appendStrAfter(b, o.Name, err)
	b, err = appendStrField(b, `,"host":`, o.Host, err)
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

// appendStrField writes an omitempty string field.
func appendStrField(b []byte, name, s string, err error) ([]byte, error) {
	if s == "" || err != nil {
		return b, err
	}
	return appendStr(append(b, name...), s)
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
