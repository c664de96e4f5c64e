package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/jsonenc"
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
	b, err := dst, jsonenc.ErrSlowPath
	switch v := v.(type) {
	case leasegate.LeaseResult:
		b, err = appendLeaseResult(b, v)
	case leasegate.Result:
		if v.Contention == nil && v.Blocker == nil {
			b, err = appendResult(b, v)
		}
	case leasegate.Status:
		n, lease := leasesOf(v)
		b, err = appendStatus(b, v, n, lease)
	case listedStatus:
		n, lease := v.leases()
		b, err = appendStatus(b, v.Status, n, lease)
	}
	if errors.Is(err, jsonenc.ErrSlowPath) {
		if ls, ok := v.(listedStatus); ok {
			v = ls.expanded()
		}
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
	case leasegate.LeaseRequest:
		b, err = appendLeaseRequest(make([]byte, 0, 256), v)
	case leasegate.MutateRequest:
		b, err = appendMutateRequest(make([]byte, 0, 256), v)
	default:
		return json.Marshal(v)
	}
	if errors.Is(err, jsonenc.ErrSlowPath) {
		return json.Marshal(v)
	}
	return b, err
}

func appendLeaseRequest(b []byte, r leasegate.LeaseRequest) ([]byte, error) {
	b = append(b, `{"op":`...)
	b, err := jsonenc.String(b, string(r.Op))
	b = append(b, `,"owner":`...)
	b, err = jsonenc.Owner(b, r.Owner, err)
	if r.Scope.Type != "" || r.Scope.Paths != nil || r.Scope.Files != nil { // omitzero
		b = append(b, `,"scope":`...)
		b, err = jsonenc.Scope(b, r.Scope, err)
	}
	if r.TTL != 0 {
		b = append(b, `,"ttl":`...)
		b = strconv.AppendInt(b, int64(r.TTL), 10)
	}
	if r.LeaseID != "" {
		b = append(b, `,"lease_id":`...)
		b, err = jsonenc.StringAfter(b, string(r.LeaseID), err)
	}
	if r.Token != 0 {
		b = append(b, `,"token":`...)
		b = strconv.AppendUint(b, r.Token, 10)
	}
	if r.Reason != "" {
		b = append(b, `,"reason":`...)
		b, err = jsonenc.StringAfter(b, r.Reason, err)
	}
	return append(b, '}'), err
}

func appendMutateRequest(b []byte, r leasegate.MutateRequest) ([]byte, error) {
	b = append(b, `{"owner":`...)
	b, err := jsonenc.String(b, r.Owner)
	b = append(b, `,"op":`...)
	b, err = jsonenc.StringAfter(b, r.Op, err)
	b = append(b, `,"paths":`...)
	if r.Paths == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, p := range r.Paths {
			if i > 0 {
				b = append(b, ',')
			}
			b, err = jsonenc.StringAfter(b, p, err)
		}
		b = append(b, ']')
	}
	if len(r.Files) > 0 {
		b = append(b, `,"files":`...)
		b, err = jsonenc.Files(b, r.Files, err)
	}
	if r.Try {
		b = append(b, `,"try":true`...)
	}
	if r.RetryAfter != (gate.Window{}) && err == nil {
		var w []byte
		w, err = json.Marshal(r.RetryAfter)
		b = append(append(b, `,"retry_after":`...), w...)
	}
	if r.HoldsGitLock != "" {
		b = append(b, `,"holds_git_lock":`...)
		b, err = jsonenc.StringAfter(b, r.HoldsGitLock, err)
	}
	return append(b, '}'), err
}

func appendLeaseResult(b []byte, r leasegate.LeaseResult) ([]byte, error) {
	b = append(b, `{"decision":`...)
	b, err := appendDecision(b, r.Decision)
	if err == nil && len(r.Leases) > 0 {
		b = append(b, `,"leases":`...)
		b, err = appendLeases(b, r.Leases)
	}
	return append(b, '}'), err
}

func appendResult(b []byte, r leasegate.Result) ([]byte, error) {
	b = append(b, `{"outcome":`...)
	b, err := jsonenc.String(b, string(r.Outcome))
	b = append(b, `,"reason":`...)
	b, err = jsonenc.StringAfter(b, string(r.Reason), err)
	if r.Message != "" {
		b = append(b, `,"message":`...)
		b, err = jsonenc.StringAfter(b, r.Message, err)
	}
	if len(r.Leases) > 0 && err == nil {
		b = append(b, `,"leases":`...)
		b, err = appendLeases(b, r.Leases)
	}
	if r.Holder != nil && err == nil {
		b = append(b, `,"holder":`...)
		b, err = jsonenc.Lease(b, r.Holder)
	}
	return append(b, '}'), err
}

func appendDecision(b []byte, d gate.Decision) ([]byte, error) {
	b = append(b, `{"granted":`...)
	b = strconv.AppendBool(b, d.Granted)
	b = append(b, `,"reason":`...)
	b, err := jsonenc.String(b, string(d.Reason))
	if d.Message != "" {
		b = append(b, `,"message":`...)
		b, err = jsonenc.StringAfter(b, d.Message, err)
	}
	b, err = appendLeaseField(b, `,"holder":`, d.Holder, err)
	b, err = appendLeasesField(b, `,"conflicts":`, d.Conflicts, err)
	b, err = appendLeaseField(b, `,"lease":`, d.Lease, err)
	b, err = appendLeasesField(b, `,"covered":`, d.Covered, err)
	if d.Remaining != 0 {
		b = append(b, `,"remaining_ns":`...)
		b = strconv.AppendInt(b, int64(d.Remaining), 10)
	}
	return append(b, '}'), err
}

// appendLeaseField writes an omitempty *gate.Lease field.
func appendLeaseField(b []byte, name string, l *gate.Lease, err error) ([]byte, error) {
	if l == nil || err != nil {
		return b, err
	}
	return jsonenc.Lease(append(b, name...), l)
}

// appendLeasesField writes an omitempty []gate.Lease field.
func appendLeasesField(b []byte, name string, ls []gate.Lease, err error) ([]byte, error) {
	if len(ls) == 0 || err != nil {
		return b, err
	}
	return appendLeases(append(b, name...), ls)
}

// appendLease writes l as encoding/json does: by hand, or through
// encoding/json where the hand encoder leaves it.
func appendLease(b []byte, l *gate.Lease) ([]byte, error) {
	out, err := jsonenc.Lease(b, l)
	if !errors.Is(err, jsonenc.ErrSlowPath) {
		return out, err
	}
	j, err := json.Marshal(l)
	if err != nil {
		return b, err
	}
	return append(b, j...), nil
}

func appendLeases(b []byte, ls []gate.Lease) ([]byte, error) {
	b = append(b, '[')
	var err error
	for i := range ls {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = jsonenc.Lease(b, &ls[i]); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

// appendStatus writes a status with its leases written by hand, and the
// rest by encoding/json: a status of 100,000 leases through reflection
// alone took the coordinator's memory from ~63 MiB to a peak of ~150 while
// it answered.
// Its n leases are read by lease, not from s.
func appendStatus(b []byte, s leasegate.Status, n int, lease nthLease) ([]byte, error) {
	before, after, err := statusAround(s)
	if err != nil {
		return b, err
	}
	b = slices.Grow(b, len(before)+n*leaseBytes+len(after)+1) // +1: the answer's newline
	b = append(append(b, before...), '[')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		l := lease(i)
		if b, err = jsonenc.Lease(b, &l); err != nil {
			return b, err
		}
	}
	return append(append(b, ']'), after...), nil
}

// statusAround is what encoding/json writes of s before and after its
// leases' array, which goes between them. It is found where encoding/json
// writes the field of a status without leases: no string of that output
// can hold the field's bytes, since a quote inside a string is escaped.
func statusAround(s leasegate.Status) (before, after []byte, err error) {
	const field = `"leases":null`
	if s.Leases == nil {
		return nil, nil, jsonenc.ErrSlowPath
	}
	s.Leases = nil
	rest, err := json.Marshal(s)
	if err != nil {
		return nil, nil, err
	}
	at := bytes.Index(rest, []byte(field))
	if at < 0 {
		return nil, nil, jsonenc.ErrSlowPath
	}
	return append(rest[:at:at], `"leases":`...), rest[at+len(field):], nil
}

// leaseBytes is about what one lease of a status takes in JSON, so that
// its buffer is sized once rather than doubled up to its size.
const leaseBytes = 448

func timeDuration(n int64) time.Duration { return time.Duration(n) }
