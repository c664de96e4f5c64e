package gate_test

import (
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
