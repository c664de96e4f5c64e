package gate_test

import (
	"math/rand/v2"
	"path"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/gate"
)

func TestOverlap(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"docs/*", "docs/api.md", true},
		{"docs/*", "docs/guide/api.md", false},
		{"src/**", "**/*.go", true},
		{"docs/*", "src/*", false},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/c", false},
		{"a/*.md", "a/*.go", false},
		{"a/b*", "a/*c", true},
		{"a/b*c", "a/*d", false},
		{"**", "anything/at/all.txt", true},
		{"**", "x", true},
		{"**", "**", true},
		{"**", "a/*/[bc]", true},
		{"x/?", "x/ab", false},
		{"x/?", "x/a", true},
		{"x/??", "x/ab", true},
		{"[ab]", "c", true}, // a class is one character of any kind
		{"[ab]", "cd", false},
		{"x[ab]y", "xcy", true},
		{"x[ab]y", "xy", false},
		{"[", "[", true},
		{"a[", "ab", false},
		{"d/**", "d", true},
		{"d/**", "d/e/f", true},
		{"d/**", "dd", false},
		{"d/**", "e/d", false},
		{"**/d", "d", true},
		{"**/*_test.go", "src/foo_test.go", true},
		{"**/*_test.go", "src/foo.go", false},
		{"src/*.go", "src/**/x.go", true},
		{"*/*", "a", false},
		{"*/*", "**", true},
		{"a/**/b/**/c", "a/c", false},
		{"a/**/b/**/c", "a/b/c", true},
		{"a/**/**/b", "a/b", true},
		{"plain/path.go", "plain/path.go", true},
		{"plain/path.go", "plain/other.go", false},
		{"caf?.md", "café.md", true},
		{"[é]", "é", true},
		{"*é", "é", true},
		{`app/\[id]/page.tsx`, "app/i/page.tsx", false}, // a name holding a class is that name
		{`app/\[id]/page.tsx`, `app/\[id]/page.tsx`, true},
		{`app/\[id]/**`, `app/\[id]/page.tsx`, true},
		{`app/\[id]/**`, "app/i/page.tsx", false},
		{`app/\[id]/**`, "app/*/page.tsx", true},
		{`\[id]`, "i", false},
		{`\[id]`, "[id]", false}, // one character, against four
		{`\[id]`, "?id]", true},
		{`\*`, "x", false},
		{`\*`, "*", true},
		{`\*`, `\?`, false},
		{`a\b`, `a\b`, true}, // a backslash that escapes nothing is a backslash
		{`a\b`, "ab", false},
		{`a\\*`, `a\x`, true},
		{`a\\*`, "ax", false},
		{`x\?y`, "x?y", true},
		{`x\?y`, "xay", false},
		{`\*\*`, "a/b", false}, // a file named "**" is no "**"
		{`[\]a]`, "b", true},
		{`[\]a]x`, "bx", true},
	}
	for _, tt := range tests {
		if got := gate.Overlap(tt.a, tt.b); got != tt.want {
			t.Errorf("Overlap(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := gate.Overlap(tt.b, tt.a); got != tt.want {
			t.Errorf("Overlap(%q, %q) = %v, want %v", tt.b, tt.a, got, tt.want)
		}
	}
}

// refMatch is the reference matcher: path.Match per segment, and a "**"
// segment matching zero or more whole segments.
func refMatch(pat, name []string) bool {
	if len(pat) == 0 {
		return len(name) == 0
	}
	if pat[0] == "**" {
		return refMatch(pat[1:], name) || (len(name) > 0 && refMatch(pat, name[1:]))
	}
	if len(name) == 0 {
		return false
	}
	ok, err := path.Match(refSegment(pat[0]), name[0])
	return err == nil && ok && refMatch(pat[1:], name[1:])
}

// refSegment is a segment glob in path.Match's syntax, where a backslash
// escapes every character: a backslash that escapes nothing in a pattern
// (see gate.Literal) is a backslash, escaped.
func refSegment(seg string) string {
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		switch {
		case seg[i] == '\\' && i+1 < len(seg) && strings.IndexByte(`*?[]\`, seg[i+1]) >= 0:
			b.WriteString(seg[i : i+2])
			i++
		case seg[i] == '\\':
			b.WriteString(`\\`)
		default:
			b.WriteByte(seg[i])
		}
	}
	return b.String()
}

func matches(pattern, name string) bool {
	return refMatch(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

var (
	// nameSegs are names as the file system spells them, some holding
	// glob metacharacters or a backslash; a pattern holds them escaped.
	nameSegs = []string{"a", "b", "ab", "ba", "abc", "x.go", "x_test.go", "y.md", "é", "café", "c", "[a]", "*", "a*", "?", `a\b`, `\`, "]", "**"}
	globSegs = []string{"*", "?", "??", "a*", "*b", "*.go", "*_test.go", "x*", "[ab]", "[a-c]*", "[^a]", "a?c", "caf?", "**", "**",
		`\[a]*`, `*\*`, `a\\*`, `\?`, `[\]a]`}
)

// randPattern makes a clean pattern of 1 to 4 segments, about half globs.
func randPattern(r *rand.Rand) string {
	segs := make([]string, 1+r.IntN(4))
	for i := range segs {
		if r.IntN(2) == 0 {
			segs[i] = globSegs[r.IntN(len(globSegs))]
		} else {
			segs[i] = gate.Literal(nameSegs[r.IntN(len(nameSegs))])
		}
	}
	return strings.Join(segs, "/")
}

func randName(r *rand.Rand) string {
	segs := make([]string, 1+r.IntN(4))
	for i := range segs {
		segs[i] = nameSegs[r.IntN(len(nameSegs))]
	}
	return strings.Join(segs, "/")
}

// instantiate turns a pattern into a concrete path it may match: a witness
// candidate that random paths would rarely hit.
func instantiate(r *rand.Rand, pattern string) string {
	var out []string
	for _, seg := range strings.Split(pattern, "/") {
		if seg == "**" {
			for range r.IntN(3) {
				out = append(out, nameSegs[r.IntN(len(nameSegs))])
			}
			continue
		}
		out = append(out, instantiateSeg(r, seg))
	}
	if len(out) == 0 {
		return nameSegs[r.IntN(len(nameSegs))]
	}
	return strings.Join(out, "/")
}

func instantiateSeg(r *rand.Rand, seg string) string {
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		switch seg[i] {
		case '\\':
			if i+1 < len(seg) && strings.IndexByte(`*?[]\`, seg[i+1]) >= 0 {
				i++
			}
			b.WriteByte(seg[i])
		case '*':
			b.WriteString([]string{"", "a", "b", "é", "ab"}[r.IntN(5)])
		case '?':
			b.WriteString([]string{"a", "b", "c", "é"}[r.IntN(4)])
		case '[':
			j := i + 2 // a class holds one character at least
			for ; j < len(seg) && seg[j] != ']'; j++ {
				if seg[j] == '\\' {
					j++
				}
			}
			b.WriteString([]string{"a", "b", "c"}[r.IntN(3)])
			i = j
		default:
			b.WriteByte(seg[i])
		}
	}
	if b.Len() == 0 {
		return "a"
	}
	return b.String()
}

// TestOverlapNeverFalselyDisjoint: whenever a concrete path matches both
// patterns, Overlap must say so, both ways round. Against a plain path,
// Overlap is exactly the reference match for patterns without classes;
// a name holding glob metacharacters is a plain path once escaped
// (gate.Literal), and then matches only itself.
func TestOverlapNeverFalselyDisjoint(t *testing.T) {
	r := testRand(t)
	for range 3000 {
		a, b := randPattern(r), randPattern(r)
		for _, name := range candidates(r, a, b) {
			ma, mb := matches(a, name), matches(b, name)
			if ma && mb && (!gate.Overlap(a, b) || !gate.Overlap(b, a)) {
				t.Fatalf("Overlap(%q, %q) = false, but %q matches both", a, b, name)
			}
			lit := gate.Literal(name)
			if gate.IsGlob(lit) {
				t.Fatalf("IsGlob(Literal(%q)) = true", name)
			}
			if got := gate.Overlap(a, lit); ma && !got || !ma && got && !hasClass(a) {
				t.Fatalf("Overlap(%q, %q) = %v, want %v", a, lit, got, ma)
			}
		}
	}
}

// hasClass reports whether pattern p has a character class, which
// Overlap takes for any one character.
func hasClass(p string) bool { return strings.Contains(strings.ReplaceAll(p, `\[`, ""), "[") }

func candidates(r *rand.Rand, a, b string) []string {
	out := []string{instantiate(r, a), instantiate(r, b)}
	for range 8 {
		out = append(out, randName(r), instantiate(r, a), instantiate(r, b))
	}
	return out
}
