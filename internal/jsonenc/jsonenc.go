// Package jsonenc appends the JSON of the lease types the hot paths encode
// (leases, owners, scopes, file identities, strings, times) byte for byte
// as encoding/json writes them, without reflection. A value it cannot write that way (a
// string that needs escaping, a time outside the years 0 to 9999) stops it
// with ErrSlowPath, and the caller drops what was appended and hands the
// whole value to encoding/json. Functions that take an error are steps of
// a longer encoding: they pass an earlier step's error on. Its Scanner
// reads that canonical form back, likewise giving up to encoding/json on
// anything else; the API's codecs and the ledger's event decoder share it.
package jsonenc

import (
	"errors"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/leasegate/leasegate/gate"
)

// ErrSlowPath means the value needs encoding/json.
var ErrSlowPath = errors.New("not on the fast path")

// Lease appends l as encoding/json writes a gate.Lease.
func Lease(b []byte, l *gate.Lease) ([]byte, error) {
	b = append(b, `{"id":`...)
	b, err := String(b, string(l.ID))
	b = append(b, `,"owner":`...)
	b, err = Owner(b, l.Owner, err)
	b = append(b, `,"kind":`...)
	b, err = StringAfter(b, string(l.Kind), err)
	b = append(b, `,"scope":`...)
	b, err = Scope(b, l.Scope, err)
	b = append(b, `,"state":`...)
	b, err = StringAfter(b, string(l.State), err)
	b = append(b, `,"fencing_token":`...)
	b = strconv.AppendUint(b, l.FencingToken, 10)
	b = append(b, `,"acquired_at":`...)
	b, err = Time(b, l.AcquiredAt, err)
	b = append(b, `,"last_heartbeat_at":`...)
	b, err = Time(b, l.LastHeartbeatAt, err)
	if !l.ExpiresAt.IsZero() {
		b = append(b, `,"expires_at":`...)
		b, err = Time(b, l.ExpiresAt, err)
	}
	if l.RenewalCount != 0 {
		b = append(b, `,"renewal_count":`...)
		b = strconv.AppendUint(b, uint64(l.RenewalCount), 10)
	}
	if l.ReminderSent {
		b = append(b, `,"reminder_sent":true`...)
	}
	b, err = StringField(b, `,"release_reason":`, l.ReleaseReason, err)
	b, err = StringField(b, `,"ended_by":`, l.EndedBy, err)
	if !l.TerminatedAt.IsZero() {
		b = append(b, `,"terminated_at":`...)
		b, err = Time(b, l.TerminatedAt, err)
	}
	if l.NewDir {
		b = append(b, `,"new_dir":true`...)
	}
	return append(b, '}'), err
}

// Owner appends o as encoding/json writes a gate.Owner, unless an earlier
// step failed.
func Owner(b []byte, o gate.Owner, err error) ([]byte, error) {
	b = append(b, `{"name":`...)
	b, err = StringAfter(b, o.Name, err)
	b, err = StringField(b, `,"host":`, o.Host, err)
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

// Operator appends o as encoding/json writes a *gate.Operator, unless an
// earlier step failed.
func Operator(b []byte, o *gate.Operator, err error) ([]byte, error) {
	b = append(b, '{')
	if o.PID != 0 {
		b = append(b, `"pid":`...)
		b = strconv.AppendInt(b, int64(o.PID), 10)
		b = append(b, ',')
	}
	if o.Comm != "" {
		b = append(b, `"comm":`...)
		b, err = StringAfter(b, o.Comm, err)
		b = append(b, ',')
	}
	b = append(b, `"uid":`...)
	b = strconv.AppendUint(b, uint64(o.UID), 10)
	b = append(b, `,"source":`...)
	b, err = StringAfter(b, o.Source, err)
	return append(b, '}'), err
}

// Scope appends sc as encoding/json writes a gate.Scope, unless an earlier
// step failed.
func Scope(b []byte, sc gate.Scope, err error) ([]byte, error) {
	b = append(b, `{"type":`...)
	b, err = StringAfter(b, string(sc.Type), err)
	if len(sc.Paths) > 0 {
		b = append(b, `,"paths":[`...)
		for i, p := range sc.Paths {
			if i > 0 {
				b = append(b, ',')
			}
			b, err = StringAfter(b, p, err)
		}
		b = append(b, ']')
	}
	if len(sc.Files) > 0 {
		b = append(b, `,"files":`...)
		b, err = Files(b, sc.Files, err)
	}
	return append(b, '}'), err
}

// Files appends fs as encoding/json writes a []gate.File, unless an
// earlier step failed.
func Files(b []byte, fs []gate.File, err error) ([]byte, error) {
	b = append(b, '[')
	for i, f := range fs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"path":`...)
		b, err = StringAfter(b, f.Path, err)
		b = append(b, `,"dev":`...)
		b = strconv.AppendUint(b, f.Dev, 10)
		b = append(b, `,"ino":`...)
		b = strconv.AppendUint(b, f.Ino, 10)
		b = append(b, '}')
	}
	return append(b, ']'), err
}

// StringField appends an omitempty string field: name (with its leading
// comma and colon) and s, unless s is empty or an earlier step failed.
func StringField(b []byte, name, s string, err error) ([]byte, error) {
	if s == "" || err != nil {
		return b, err
	}
	return String(append(b, name...), s)
}

// StringAfter appends s quoted unless an earlier step already failed.
func StringAfter(b []byte, s string, err error) ([]byte, error) {
	if err != nil {
		return b, err
	}
	return String(b, s)
}

// appendStr quotes s when encoding/json would write it unescaped: printable
// ASCII other than " \ < > &, and valid UTF-8 other than U+2028 and U+2029.
func String(b []byte, s string) ([]byte, error) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return b, ErrSlowPath
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' {
			return b, ErrSlowPath
		}
		i += size
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), nil
}

// Time appends t as time.Time's MarshalJSON does, for the times it
// writes without complaint: years 0 to 9999 and zones of whole minutes
// under a day.
func Time(b []byte, t time.Time, err error) ([]byte, error) {
	if err != nil {
		return b, err
	}
	_, off := t.Zone()
	if y := t.Year(); y < 0 || y > 9999 || off%60 != 0 || off <= -24*3600 || off >= 24*3600 {
		return b, ErrSlowPath
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), nil
}
