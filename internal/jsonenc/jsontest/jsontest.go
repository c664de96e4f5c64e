// Package jsontest serves the tests that hold a hand-written JSON encoder
// to encoding/json: random values with the odd cases that the encoders
// must leave to encoding/json mixed in, and a type's JSON field names for
// the tests that pin the fields an encoder knows.
package jsontest

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"time"

	"github.com/leasegate/leasegate/gate"
)

var (
	plainStrings = []string{"", "w3", "src/foo.go", "docs/**", "a b", "ünïcödé/ファイル", "~del\x7f"}
	oddStrings   = []string{"<html>", "a&b", `quo"te`, `back\slash`, "tab\there", "line\u2028sep", "bad\xffutf8", "ctl\x01"}
)

// Gen makes random values from R.
type Gen struct{ R *rand.Rand }

// New returns a Gen seeded with seed1 and seed2.
func New(seed1, seed2 uint64) Gen { return Gen{rand.New(rand.NewPCG(seed1, seed2))} }

// Str is mostly a string the fast paths write, sometimes one they leave to
// encoding/json.
func (g Gen) Str() string {
	if g.R.IntN(50) == 0 {
		return oddStrings[g.R.IntN(len(oddStrings))]
	}
	return plainStrings[g.R.IntN(len(plainStrings))]
}

// Time is mostly a UTC time, sometimes a zero one, one in another zone,
// one encoding/json refuses, one whose zone has seconds, or one with a
// monotonic reading.
func (g Gen) Time() time.Time {
	switch g.R.IntN(40) {
	case 0:
		return time.Time{}
	case 1:
		return time.Date(2026, 11, 23, 1, 2, 3, 0, time.FixedZone("x", 5*3600+30*60))
	case 2:
		return time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) // encoding/json refuses it
	case 3:
		return time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("odd", 17)) // seconds in the zone
	case 4:
		return time.Now() // a monotonic reading, which JSON drops
	}
	return time.Unix(g.R.Int64N(4e9), g.R.Int64N(1e9)).UTC()
}

// Lease is a lease with every field random, the optional ones half the
// time.
func (g Gen) Lease() gate.Lease {
	l := gate.Lease{ID: gate.LeaseID(g.Str()), Owner: gate.Owner{Name: g.Str()}, Kind: gate.Kind(g.Str()),
		Scope: gate.Scope{Type: gate.ScopeType(g.Str())}, State: gate.State(g.Str()), FencingToken: g.R.Uint64(),
		AcquiredAt: g.Time(), LastHeartbeatAt: g.Time(), ExpiresAt: g.Time(), TerminatedAt: g.Time()}
	if g.R.IntN(2) == 0 {
		l.Owner.Host, l.Owner.PID, l.Owner.StartTime = g.Str(), g.R.IntN(1<<22)-10, g.R.Int64()
		l.RenewalCount, l.ReminderSent, l.ReleaseReason, l.EndedBy, l.NewDir = g.R.Uint32(), true, g.Str(), g.Str(), true
	}
	for range g.R.IntN(3) {
		l.Scope.Paths = append(l.Scope.Paths, g.Str())
	}
	for range g.R.IntN(3) / 2 {
		l.Scope.Files = append(l.Scope.Files, gate.File{Path: g.Str(), Dev: g.R.Uint64(), Ino: g.R.Uint64()})
	}
	return l
}

// FieldNames lists the names in the json tags of v's fields, in order,
// separated by spaces ("-" for a field JSON leaves out).
func FieldNames(v any) string {
	var names []string
	for f := range reflect.TypeOf(v).Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		names = append(names, name)
	}
	return strings.Join(names, " ")
}
