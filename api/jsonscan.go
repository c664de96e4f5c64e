package api

import (
	"time"
	"unicode/utf8"
)

// scan reads the JSON that the hot-path codecs (codec_decode.go) expect:
// objects with exactly spelled keys, strings without escapes, integers,
// booleans and times. Anything else (escapes, null, floats, keys spelled
// otherwise, malformed input) sets bad, and the caller decodes the whole
// input with encoding/json instead, which then decides what it means or
// which error it is. So scan never has to agree with encoding/json on
// anything but the plain, canonical form.
type scan struct {
	b   []byte
	i   int
	bad bool
}

// fail leaves the fast path; every later read returns at once.
func (s *scan) fail() {
	s.bad = true
	s.i = len(s.b)
}

func (s *scan) skipSpace() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// eat consumes c (after white space) if it is next.
func (s *scan) eat(c byte) bool {
	s.skipSpace()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scan) want(c byte) {
	if !s.eat(c) {
		s.fail()
	}
}

// end checks that only white space is left.
func (s *scan) end() {
	s.skipSpace()
	if s.i != len(s.b) {
		s.fail()
	}
}

// object reads an object, calling field with each key; field reads the
// value (or calls fail for a key it does not know).
func (s *scan) object(field func(key []byte)) {
	s.want('{')
	if s.eat('}') {
		return
	}
	for !s.bad {
		key := s.raw()
		s.want(':')
		field(key)
		if !s.eat(',') {
			s.want('}')
			return
		}
	}
}

// array reads an array, calling elem for each element.
func (s *scan) array(elem func()) {
	s.want('[')
	if s.eat(']') {
		return
	}
	for !s.bad {
		elem()
		if !s.eat(',') {
			s.want(']')
			return
		}
	}
}

// raw reads a string without escapes and returns its bytes.
func (s *scan) raw() []byte {
	if !s.eat('"') {
		s.fail()
		return nil
	}
	start, ascii := s.i, true
	for ; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			v := s.b[start:s.i]
			s.i++
			if !ascii && !utf8.Valid(v) {
				s.fail() // encoding/json replaces bad bytes with U+FFFD
			}
			return v
		case c == '\\' || c < 0x20:
			s.fail()
			return nil
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	s.fail()
	return nil
}

func (s *scan) str() string { return string(s.raw()) }

func (s *scan) strings() []string {
	out := []string{}
	s.array(func() { out = append(out, s.str()) })
	return out
}

func (s *scan) boolean() bool {
	s.skipSpace()
	switch {
	case s.literal("true"):
		return true
	case s.literal("false"):
		return false
	}
	s.fail()
	return false
}

func (s *scan) literal(lit string) bool {
	if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
		s.i += len(lit)
		return true
	}
	return false
}

// uint reads a non-negative integer no larger than max.
func (s *scan) uint(max uint64) uint64 {
	s.skipSpace()
	start := s.i
	var n uint64
	for ; s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9'; s.i++ {
		d := uint64(s.b[s.i] - '0')
		if n > (max-d)/10 {
			s.fail()
			return 0
		}
		n = n*10 + d
	}
	digits := s.i - start
	if digits == 0 || (digits > 1 && s.b[start] == '0') || s.moreNumber() {
		s.fail()
	}
	return n
}

// moreNumber reports a fraction or exponent after the digits.
func (s *scan) moreNumber() bool {
	return s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E')
}

// int reads an integer within int64.
func (s *scan) int() int64 {
	if s.eat('-') {
		return -int64(s.uint(1 << 63))
	}
	return int64(s.uint(1<<63 - 1))
}

// time reads a time as time.Time's UnmarshalJSON does.
func (s *scan) time() time.Time {
	s.skipSpace()
	start := s.i
	s.raw()
	var t time.Time
	if s.bad || t.UnmarshalJSON(s.b[start:s.i]) != nil {
		s.fail()
	}
	return t
}
