package gate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/gate"
)

// TestHeldMessageNamesPathsSafely: a refusal's message names the path as
// ShownPath shows it, so a file name with a newline or an escape sequence
// cannot forge a line of it or drive the terminal it is printed on; a
// whole-workspace request names the paths the holder has, not the
// workspace as if it were all held.
func TestHeldMessageNamesPathsSafely(t *testing.T) {
	for _, c := range []struct {
		held string
		req  gate.Request
		want string
	}{
		{"nl\nx.txt", write("bob", "nl\nx.txt"), `"nl\nx.txt" is held by alice`},
		{"e\x1b7red.txt", checkout("bob", fileScope("e\x1b7red.txt")), `"e\x1b7red.txt" is held by alice`},
		{"plain.txt", write("bob", "plain.txt"), "plain.txt is held by alice"},
		{"a.txt", checkout("bob", fullScope()), "a.txt (in the whole workspace asked for) is held by alice"},
	} {
		w := newWorld(t)
		w.grant(write("alice", c.held), t0)
		d := w.decide(c.req, t0)
		if d.Granted || d.Reason != gate.ReasonHeldByOther {
			t.Fatalf("Decide(%v) with alice holding %q = %s, want %s", c.req.Scope, c.held, d.Reason, gate.ReasonHeldByOther)
		}
		if !strings.HasPrefix(d.Message, c.want) || strings.ContainsAny(d.Message, "\n\x1b") {
			t.Errorf("message = %q, want it to start %q with no control character", d.Message, c.want)
		}
	}
	if got := gate.ShownPath("d\u00e9j\u00e0 vu.go"); got != "d\u00e9j\u00e0 vu.go" {
		t.Errorf("ShownPath of a printable name = %q, want it as it is", got)
	}
	if got := gate.ShownPath("bad\xff.go"); got != `"bad\xff.go"` {
		t.Errorf("ShownPath of invalid UTF-8 = %q, want it quoted", got)
	}
}

// TestShownPathsNeverLookAlike: two different names, or one name and a
// list of two, are never shown the same way: a name that starts with a
// quote is not taken for another name quoted, a space at either end is
// visible, and a name holding the list's separator is not taken for two.
func TestShownPathsNeverLookAlike(t *testing.T) {
	for _, c := range []struct {
		a, b []string
		sep  string
	}{
		{a: []string{"nl\nname"}, b: []string{`"nl\nname"`}},
		{a: []string{"a.txt"}, b: []string{"a.txt "}},
		{a: []string{"a.txt"}, b: []string{" a.txt"}},
		{a: []string{"a b"}, b: []string{"a", "b"}, sep: " "},
		{a: []string{"a, b"}, b: []string{"a", "b"}, sep: ", "},
	} {
		sa, sb := gate.ShownPaths(c.a, c.sep), gate.ShownPaths(c.b, c.sep)
		if strings.TrimSpace(sa) == strings.TrimSpace(sb) {
			t.Errorf("ShownPaths(%q) = ShownPaths(%q) = %s, want them told apart", c.a, c.b, sa)
		}
	}
	for _, p := range []string{"a b.txt", "d\u00e9j\u00e0/x", `mid"quote`} {
		if got := gate.ShownPath(p); got != p {
			t.Errorf("ShownPath(%q) = %s, want it as it is", p, got)
		}
	}
}

// TestShownFewPaths: a scope of more than MaxShownPaths paths is shown by
// its first ones and how many more there are; a few paths are all shown.
func TestShownFewPaths(t *testing.T) {
	many := []string{"gen", "gen/a", "gen/b/**", "gen/c", "gen/d", "gen/e", "gen/f"}
	for _, tt := range []struct {
		paths []string
		sep   string
		want  string
	}{
		{many[:2], ", ", "gen, gen/a"},
		{many[:gate.MaxShownPaths], " ", "gen gen/a gen/b/** gen/c gen/d"},
		{many, " ", "gen gen/a gen/b/** gen/c gen/d and 2 more"},
		{many, ", ", "gen, gen/a, gen/b/**, gen/c, gen/d, and 2 more"},
	} {
		if got := gate.ShownFewPaths(tt.paths, tt.sep); got != tt.want {
			t.Errorf("ShownFewPaths(%q, %q) = %q, want %q", tt.paths, tt.sep, got, tt.want)
		}
	}
}

// TestHeldMessageNamesAFewOfManyPaths: a whole-workspace request refused
// by a lease of many paths (a narrowed new directory's holds thousands)
// names the first few and how many more, not every one.
func TestHeldMessageNamesAFewOfManyPaths(t *testing.T) {
	var held []string
	for i := range 40 {
		held = append(held, fmt.Sprintf("gen/f%02d", i))
	}
	w := newWorld(t)
	w.grant(checkout("alice", gate.Scope{Type: gate.ScopeSparse, Paths: held}), t0)
	d := w.decide(checkout("bob", fullScope()), t0)
	want := "gen/f00, gen/f01, gen/f02, gen/f03, gen/f04, and 35 more (in the whole workspace asked for) is held by alice"
	if d.Granted || !strings.HasPrefix(d.Message, want) {
		t.Errorf("Decide(full check-out) with alice holding 40 paths = %q, want it to start %q", d.Message, want)
	}
}
