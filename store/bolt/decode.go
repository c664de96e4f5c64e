package bolt

import (
	"encoding/json"
	"math"
	"time"
	"unicode/utf8"

	"github.com/leasegate/leasegate/gate"
)

// parseEvent reads an event in the layout the encoder writes (codec.go and
// internal/jsonenc: fields in declaration order, optional ones left out,
// strings without escapes) without reflection. It gives up (ok false) on
// anything else, and the caller hands the value to encoding/json, so an
// event it reads is the event encoding/json would read: decode_test.go
// holds the two side by side, on what the encoder writes and on damaged
// copies of it. Replaying a long ledger is mostly this.
func parseEvent(v []byte) (e gate.Event, ok bool) {
	p := parser{b: v}
	p.lit(`{"seq":`)
	e.Seq = p.uint(math.MaxUint64)
	p.lit(`,"type":`)
	e.Type = gate.EventType(p.str())
	p.lit(`,"at":`)
	e.At = p.time()
	if p.opt(`,"actor":`) {
		e.Actor = p.str()
	}
	if p.opt(`,"lease_id":`) {
		e.LeaseID = gate.LeaseID(p.str())
	}
	if p.opt(`,"lease":`) {
		e.Lease = p.lease()
	}
	if p.opt(`,"expires_at":`) {
		e.ExpiresAt = p.time()
	}
	if p.opt(`,"reason":`) {
		e.Reason = p.str()
	}
	if p.opt(`,"path":`) {
		e.Path = p.str()
	}
	if p.opt(`,"data":`) {
		e.Data = p.last()
	}
	p.lit(`}`)
	p.end()
	return e, !p.bad
}

// lease reads a lease as jsonenc.Lease writes it. A field the encoder does
// not know of yet makes the whole event go to encoding/json.
func (p *parser) lease() *gate.Lease {
	l := new(gate.Lease)
	p.lit(`{"id":`)
	l.ID = gate.LeaseID(p.str())
	p.lit(`,"owner":{"name":`)
	l.Owner.Name = p.str()
	if p.opt(`,"host":`) {
		l.Owner.Host = p.str()
	}
	if p.opt(`,"pid":`) {
		l.Owner.PID = int(p.int(math.MinInt, math.MaxInt))
	}
	if p.opt(`,"start_time":`) {
		l.Owner.StartTime = p.int(math.MinInt64, math.MaxInt64)
	}
	p.lit(`},"kind":`)
	l.Kind = gate.Kind(p.str())
	p.lit(`,"scope":{"type":`)
	l.Scope.Type = gate.ScopeType(p.str())
	if p.opt(`,"paths":[`) {
		for first := true; !p.bad && (first || p.opt(`,`)); first = false {
			l.Scope.Paths = append(l.Scope.Paths, p.str())
		}
		p.lit(`]`)
	}
	if p.opt(`,"files":[`) {
		l.Scope.Files = p.files()
	}
	p.lit(`},"state":`)
	l.State = gate.State(p.str())
	p.lit(`,"fencing_token":`)
	l.FencingToken = p.uint(math.MaxUint64)
	p.lit(`,"acquired_at":`)
	l.AcquiredAt = p.time()
	p.lit(`,"last_heartbeat_at":`)
	l.LastHeartbeatAt = p.time()
	if p.opt(`,"expires_at":`) {
		l.ExpiresAt = p.time()
	}
	if p.opt(`,"renewal_count":`) {
		l.RenewalCount = uint32(p.uint(math.MaxUint32))
	}
	if p.opt(`,"reminder_sent":`) {
		switch {
		case p.opt(`true`):
			l.ReminderSent = true
		case !p.opt(`false`):
			p.fail()
		}
	}
	if p.opt(`,"release_reason":`) {
		l.ReleaseReason = p.str()
	}
	if p.opt(`,"ended_by":`) {
		l.EndedBy = p.str()
	}
	if p.opt(`,"terminated_at":`) {
		l.TerminatedAt = p.time()
	}
	p.lit(`}`)
	return l
}

// files reads the rest of a list of file identities as jsonenc.Files
// writes it, its "[" already read.
func (p *parser) files() []gate.File {
	var fs []gate.File
	for first := true; !p.bad && (first || p.opt(`,`)); first = false {
		var f gate.File
		p.lit(`{"path":`)
		f.Path = p.str()
		p.lit(`,"dev":`)
		f.Dev = p.uint(math.MaxUint64)
		p.lit(`,"ino":`)
		f.Ino = p.uint(math.MaxUint64)
		p.lit(`}`)
		fs = append(fs, f)
	}
	p.lit(`]`)
	return fs
}

// parser reads b from i on. Once bad is set every step does nothing and
// returns a zero value.
type parser struct {
	b   []byte
	i   int
	bad bool
}

func (p *parser) fail() { p.bad = true }

// opt consumes s if the input goes on with it.
func (p *parser) opt(s string) bool {
	if p.bad || len(p.b)-p.i < len(s) || string(p.b[p.i:p.i+len(s)]) != s {
		return false
	}
	p.i += len(s)
	return true
}

// lit consumes s, which the input must go on with.
func (p *parser) lit(s string) {
	if !p.opt(s) {
		p.fail()
	}
}

// end accepts the whitespace encoding/json allows after a value.
func (p *parser) end() {
	for ; p.i < len(p.b) && !p.bad; p.i++ {
		if c := p.b[p.i]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			p.fail()
		}
	}
}

// str reads a quoted string that needs no unescaping: valid UTF-8, no
// backslash, no control character. Strings of the lease vocabulary come
// back as the constants, without allocating.
func (p *parser) str() string {
	s, ok := p.quoted()
	if !ok {
		p.fail()
		return ""
	}
	if k, ok := vocabulary[string(s)]; ok {
		return k
	}
	return string(s)
}

// quoted returns the contents of the string at i and moves past it.
func (p *parser) quoted() ([]byte, bool) {
	if p.bad || p.i >= len(p.b) || p.b[p.i] != '"' {
		return nil, false
	}
	ascii := true
	for j := p.i + 1; j < len(p.b); j++ {
		switch c := p.b[j]; {
		case c == '"':
			s := p.b[p.i+1 : j]
			if !ascii && !utf8.Valid(s) {
				return nil, false
			}
			p.i = j + 1
			return s, true
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// time reads a quoted time as time.Time's UnmarshalJSON does.
func (p *parser) time() time.Time {
	start := p.i
	if _, ok := p.quoted(); !ok {
		p.fail()
		return time.Time{}
	}
	var t time.Time
	if err := t.UnmarshalJSON(p.b[start:p.i]); err != nil {
		p.fail()
	}
	return t
}

// uint reads a JSON integer in 0..limit.
func (p *parser) uint(limit uint64) uint64 {
	n, neg := p.digits()
	if neg || n > limit {
		p.fail()
		return 0
	}
	return n
}

// int reads a JSON integer in lo..hi.
func (p *parser) int(lo, hi int64) int64 {
	n, neg := p.digits()
	switch {
	case !neg && n <= uint64(hi):
		return int64(n)
	case neg && n <= uint64(-(lo+1))+1:
		return int64(-n)
	}
	p.fail()
	return 0
}

// digits reads an optional minus sign and the digits of a JSON integer (no
// leading zero, no fraction or exponent after it).
func (p *parser) digits() (n uint64, neg bool) {
	if p.bad {
		return 0, false
	}
	neg = p.opt("-")
	start := p.i
	for ; p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9'; p.i++ {
		d := uint64(p.b[p.i] - '0')
		if n > (math.MaxUint64-d)/10 {
			p.fail()
			return 0, false
		}
		n = n*10 + d
	}
	switch digits := p.i - start; {
	case digits == 0, digits > 1 && p.b[start] == '0':
		p.fail()
	case p.i < len(p.b) && (p.b[p.i] == '.' || p.b[p.i] == 'e' || p.b[p.i] == 'E'):
		p.fail()
	}
	return n, neg
}

// last reads the value that runs to the object's closing brace, the
// event's last field, as encoding/json hands a json.RawMessage its bytes.
func (p *parser) last() json.RawMessage {
	if p.bad {
		return nil
	}
	end := len(p.b)
	for end > p.i && isSpace(p.b[end-1]) {
		end--
	}
	if end == p.i || p.b[end-1] != '}' {
		p.fail()
		return nil
	}
	v := p.b[p.i : end-1]
	if len(v) == 0 || isSpace(v[0]) || isSpace(v[len(v)-1]) || !json.Valid(v) {
		p.fail()
		return nil
	}
	p.i = end - 1
	return append(json.RawMessage(nil), v...)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// vocabulary maps the strings that most events repeat to one copy each.
var vocabulary = func() map[string]string {
	m := make(map[string]string)
	for _, s := range []string{
		string(gate.EventGranted), string(gate.EventRenewed), string(gate.EventReleased), string(gate.EventCompleted),
		string(gate.EventExpired), string(gate.EventEvicted), string(gate.EventReclaimed), string(gate.EventReminded),
		string(gate.EventOwnerRegistered), string(gate.EventOwnerStopped), string(gate.EventOwnerGone),
		string(gate.EventContention), string(gate.EventRetry), string(gate.EventContentionWoken), string(gate.EventContentionGone), string(gate.EventContentionResolved), string(gate.EventBlockerOpened), string(gate.EventBlockerResolved),
		string(gate.EventUngatedWrite), string(gate.EventNotice), string(gate.EventNoticeUndelivered),
		string(gate.KindAuto), string(gate.KindCheckout), string(gate.ScopeFile), string(gate.ScopeSparse), string(gate.ScopeFull),
		string(gate.StateActive), string(gate.StateReleased), string(gate.StateExpired), string(gate.StateEvicted),
		string(gate.StateCompleted), string(gate.StateReclaimed), "coordinator",
	} {
		m[s] = s
	}
	return m
}()
