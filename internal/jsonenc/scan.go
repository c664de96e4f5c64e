package jsonenc

import (
	"encoding/json"
	"math"
	"time"
	"unicode/utf8"
)

// Scanner reads the plain, canonical JSON the encoders here write, without
// reflection: strings without escapes, integers without fraction or
// exponent, times as time.Time writes them. It never has to agree with
// encoding/json on anything else: on any other input it fails, and the
// caller hands the whole value to encoding/json, which then decides what
// it means or which error it is. Once failed, every step does nothing and
// returns a zero value.
//
// Steps read at the current position exactly; a reader of white-spaced
// input calls SkipSpace where JSON allows it.
type Scanner struct {
	b   []byte
	i   int
	bad bool
}

// NewScanner is a Scanner at the start of b.
func NewScanner(b []byte) Scanner { return Scanner{b: b} }

// Fail leaves the fast path.
func (s *Scanner) Fail() { s.bad = true }

// Failed reports whether the input left the fast path.
func (s *Scanner) Failed() bool { return s.bad }

// Opt consumes lit if the input goes on with it.
func (s *Scanner) Opt(lit string) bool {
	if s.bad || len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

// OptByte consumes c if it is next.
func (s *Scanner) OptByte(c byte) bool {
	if s.bad || s.i >= len(s.b) || s.b[s.i] != c {
		return false
	}
	s.i++
	return true
}

// Lit consumes lit, which the input must go on with.
func (s *Scanner) Lit(lit string) {
	if !s.Opt(lit) {
		s.Fail()
	}
}

// SkipSpace consumes the white space JSON allows between tokens.
func (s *Scanner) SkipSpace() {
	for s.i < len(s.b) && isSpace(s.b[s.i]) {
		s.i++
	}
}

// End accepts the white space encoding/json allows after a value, and
// nothing else.
func (s *Scanner) End() {
	s.SkipSpace()
	if s.i != len(s.b) {
		s.Fail()
	}
}

// Quoted reads a quoted string that needs no unescaping (valid UTF-8, no
// backslash, no control character) and returns its contents.
func (s *Scanner) Quoted() []byte {
	if s.bad || s.i >= len(s.b) || s.b[s.i] != '"' {
		s.Fail()
		return nil
	}
	j := plainEnd(s.b, s.i+1)
	if j < 0 {
		s.Fail()
		return nil
	}
	v := s.b[s.i+1 : j]
	s.i = j + 1
	return v
}

// plainEnd is the index of the quote closing a string whose contents start
// at from, or -1 when the string is not closed or needs unescaping: a
// backslash, a control character, or invalid UTF-8 (which encoding/json
// replaces with U+FFFD).
func plainEnd(b []byte, from int) int {
	ascii := true
	for j := from; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			if !ascii && !utf8.Valid(b[from:j]) {
				return -1
			}
			return j
		case c == '\\' || c < 0x20:
			return -1
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return -1
}

// Words is a set of strings a Scanner's Word returns without allocating.
type Words map[string]string

// NewWords is the set of words.
func NewWords(words ...string) Words {
	m := make(Words, len(words))
	for _, w := range words {
		m[w] = w
	}
	return m
}

// Word is Quoted as a string; a string of known comes back as known's copy,
// without allocating.
func (s *Scanner) Word(known Words) string {
	v := s.Quoted()
	if w, ok := known[string(v)]; ok {
		return w
	}
	return string(v)
}

// Time reads a quoted time as time.Time's UnmarshalJSON does.
func (s *Scanner) Time() time.Time {
	start := s.i
	s.Quoted()
	var t time.Time
	if s.bad || t.UnmarshalJSON(s.b[start:s.i]) != nil {
		s.Fail()
		return time.Time{}
	}
	return t
}

// Uint reads a JSON integer in 0..limit.
func (s *Scanner) Uint(limit uint64) uint64 {
	n, neg := s.digits()
	if neg || n > limit {
		s.Fail()
		return 0
	}
	return n
}

// Int reads a JSON integer in lo..hi.
func (s *Scanner) Int(lo, hi int64) int64 {
	n, neg := s.digits()
	switch {
	case !neg && n <= uint64(hi):
		return int64(n)
	case neg && n <= uint64(-(lo+1))+1:
		return int64(-n)
	}
	s.Fail()
	return 0
}

// digits reads an optional minus sign and the digits of a JSON integer (no
// leading zero, no fraction or exponent after it).
func (s *Scanner) digits() (n uint64, neg bool) {
	if s.bad {
		return 0, false
	}
	neg = s.Opt("-")
	start := s.i
	for ; s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9'; s.i++ {
		d := uint64(s.b[s.i] - '0')
		if n > (math.MaxUint64-d)/10 {
			s.Fail()
			return 0, false
		}
		n = n*10 + d
	}
	switch digits := s.i - start; {
	case digits == 0, digits > 1 && s.b[start] == '0':
		s.Fail()
	case s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E'):
		s.Fail()
	}
	return n, neg
}

// Trailing reads the value that runs to the closing brace ending the
// input (the last field of an object), as encoding/json hands a
// json.RawMessage its bytes, and stops before that brace.
func (s *Scanner) Trailing() json.RawMessage {
	if s.bad {
		return nil
	}
	end := len(s.b)
	for end > s.i && isSpace(s.b[end-1]) {
		end--
	}
	if end == s.i || s.b[end-1] != '}' {
		s.Fail()
		return nil
	}
	v := s.b[s.i : end-1]
	if len(v) == 0 || isSpace(v[0]) || isSpace(v[len(v)-1]) || !json.Valid(v) {
		s.Fail()
		return nil
	}
	s.i = end - 1
	return append(json.RawMessage(nil), v...)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
