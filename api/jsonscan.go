package api

import (
	"math"
	"time"

	"github.com/leasegate/leasegate/internal/jsonenc"
)

// scan reads the JSON that the hot-path codecs (codec_decode.go) expect:
// objects with exactly spelled keys, strings without escapes, integers,
// booleans and times, with white space between tokens. It is
// jsonenc.Scanner with the white space skipped: anything else (escapes,
// null, floats, keys spelled otherwise, malformed input) fails it, and the
// caller decodes the whole input with encoding/json instead.
type scan struct {
	jsonenc.Scanner
}

func newScan(b []byte) scan { return scan{jsonenc.NewScanner(b)} }

// eat consumes c (after white space) if it is next.
func (s *scan) eat(c byte) bool {
	s.SkipSpace()
	return s.OptByte(c)
}

func (s *scan) want(c byte) {
	if !s.eat(c) {
		s.Fail()
	}
}

// object reads an object, calling field with each key; field reads the
// value (or calls fail for a key it does not know).
func (s *scan) object(field func(key []byte)) {
	s.want('{')
	if s.eat('}') {
		return
	}
	for !s.Failed() {
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
	for !s.Failed() {
		elem()
		if !s.eat(',') {
			s.want(']')
			return
		}
	}
}

// raw reads a string without escapes and returns its bytes.
func (s *scan) raw() []byte {
	s.SkipSpace()
	return s.Quoted()
}

func (s *scan) str() string { return string(s.raw()) }

func (s *scan) strings() []string {
	out := []string{}
	s.array(func() { out = append(out, s.str()) })
	return out
}

func (s *scan) boolean() bool {
	s.SkipSpace()
	switch {
	case s.Opt("true"):
		return true
	case s.Opt("false"):
		return false
	}
	s.Fail()
	return false
}

// uint reads a non-negative integer no larger than max.
func (s *scan) uint(max uint64) uint64 {
	s.SkipSpace()
	return s.Uint(max)
}

// int reads an integer within int64.
func (s *scan) int() int64 {
	s.SkipSpace()
	return s.Int(math.MinInt64, math.MaxInt64)
}

// time reads a time as time.Time's UnmarshalJSON does.
func (s *scan) time() time.Time {
	s.SkipSpace()
	return s.Time()
}
