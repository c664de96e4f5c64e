package gate_test

import (
	"encoding/json"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/leasegate/leasegate/gate"
)

// TestLiteralKeepsEveryByte: a name holding bytes that are not valid
// UTF-8 becomes a pattern that is text, survives JSON (the API's and the
// ledger's) unchanged, and gives the name back; two names that differ
// only in such bytes, or in a byte and its spelling, are two patterns.
func TestLiteralKeepsEveryByte(t *testing.T) {
	tests := []struct{ name, want string }{
		{"a\xff", `a\xff`},
		{"a\xfe", `a\xfe`},
		{`a\xff`, `a\\xff`}, // the name spelt with a backslash
		{"a\\\xff", `a\\\xff`},
		{`a\xFF`, `a\xFF`}, // not a byte escape: uppercase
		{`a\x41`, `a\x41`}, // not a byte escape: below 80
		{"cut\xe2\x82", `cut\xe2\x82`},
		{"mix\xffé\xc3", `mix\xffé\xc3`},
		{"[\xff]*", `\[\xff]\*`},
		{"d\xe9j\xe0/x.go", `d\xe9j\xe0/x.go`},
	}
	seen := map[string]string{}
	for _, tt := range tests {
		got := gate.Literal(tt.name)
		if got != tt.want {
			t.Errorf("Literal(%q) = %q, want %q", tt.name, got, tt.want)
		}
		if !utf8.ValidString(got) || gate.IsGlob(got) {
			t.Errorf("Literal(%q) = %q: valid UTF-8 %v, glob %v; want text and no glob", tt.name, got, utf8.ValidString(got), gate.IsGlob(got))
		}
		if back := gate.Unescape(got); back != tt.name {
			t.Errorf("Unescape(Literal(%q)) = %q, want it back", tt.name, back)
		}
		if c, err := gate.CleanPath(got); err != nil || c != got {
			t.Errorf("CleanPath(Literal(%q)) = %q, %v; want it unchanged", tt.name, c, err)
		}
		if c, err := gate.CleanPath(tt.name); err != nil || !utf8.ValidString(c) {
			t.Errorf("CleanPath(%q) = %q, %v; want valid UTF-8", tt.name, c, err)
		}
		if wire := jsonRoundTrip(t, got); wire != got {
			t.Errorf("Literal(%q) = %q comes out of JSON as %q", tt.name, got, wire)
		}
		if other, ok := seen[got]; ok {
			t.Errorf("Literal(%q) = Literal(%q) = %q", tt.name, other, got)
		}
		seen[got] = tt.name
	}
}

// TestBytesMatchAsCharacters: a byte escape is one character to a glob
// and equal only to the same byte.
func TestBytesMatchAsCharacters(t *testing.T) {
	ff, fe, spelt := gate.Literal("a\xff"), gate.Literal("a\xfe"), gate.Literal(`a\xff`)
	for _, tt := range []struct {
		pattern, path string
		want          bool
	}{
		{ff, ff, true},
		{ff, fe, false},
		{ff, spelt, false},
		{"a?", ff, true},
		{"a?", spelt, false},
		{"a*", spelt, true},
		{`a\xf?`, ff, false},
		{`a\xf?`, spelt, true}, // a backslash, then "xf" and one character
		{`a\\xf?`, ff, false},
		{"*/**", gate.Literal("d\xe9/x"), true},
	} {
		if got := gate.Match(tt.pattern, tt.path); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

// TestNamesDifferingInBytesAreTwoLeases: two owners writing "a\xff" and
// "a\xfe" each get a lease; a third writing either meets its holder.
func TestNamesDifferingInBytesAreTwoLeases(t *testing.T) {
	w := newWorld(t)
	ff := w.grant(write("alice", gate.Literal("a\xff")), t0)
	fe := w.grant(write("bob", gate.Literal("a\xfe")), t0)
	for name, want := range map[string]gate.LeaseID{"a\xff": ff.ID, "a\xfe": fe.ID} {
		d := gate.Decide(write("carol", gate.Literal(name)), w.table, t0.Add(time.Second))
		if d.Granted || d.Holder == nil || d.Holder.ID != want {
			t.Errorf("Decide(write %q by carol) = %s, want held by %s", name, d.Reason, want)
		}
	}
}

// jsonRoundTrip is s after encoding/json has carried it.
func jsonRoundTrip(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back string
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return back
}
