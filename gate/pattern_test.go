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
	ok, err := path.Match(pat[0], name[0])
	return err == nil && ok && refMatch(pat[1:], name[1:])
}

func matches(pattern, name string) bool {
	return refMatch(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

var (
	nameSegs = []string{"a", "b", "ab", "ba", "abc", "x.go", "x_test.go", "y.md", "é", "café", "c"}
	globSegs = []string{"*", "?", "??", "a*", "*b", "*.go", "*_test.go", "x*", "[ab]", "[a-c]*", "[^a]", "a?c", "caf?", "**", "**"}
)

// randPattern makes a clean pattern of 1 to 4 segments, about half globs.
func randPattern(r *rand.Rand) string {
	segs := make([]string, 1+r.IntN(4))
	for i := range segs {
		if r.IntN(2) == 0 {
			segs[i] = globSegs[r.IntN(len(globSegs))]
		} else {
			segs[i] = nameSegs[r.IntN(len(nameSegs))]
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
		case '*':
			b.WriteString([]string{"", "a", "b", "é", "ab"}[r.IntN(5)])
		case '?':
			b.WriteString([]string{"a", "b", "c", "é"}[r.IntN(4)])
		case '[':
			end := strings.IndexByte(seg[i:], ']')
			b.WriteString([]string{"a", "b", "c"}[r.IntN(3)])
			i += end
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
// Overlap is exactly the reference match for patterns without classes.
func TestOverlapNeverFalselyDisjoint(t *testing.T) {
	r := testRand(t)
	for range 3000 {
		a, b := randPattern(r), randPattern(r)
		for _, name := range candidates(r, a, b) {
			ma, mb := matches(a, name), matches(b, name)
			if ma && mb && (!gate.Overlap(a, b) || !gate.Overlap(b, a)) {
				t.Fatalf("Overlap(%q, %q) = false, but %q matches both", a, b, name)
			}
			if got := gate.Overlap(a, name); ma && !got || !ma && got && !strings.Contains(a, "[") {
				t.Fatalf("Overlap(%q, %q) = %v, want %v", a, name, got, ma)
			}
		}
	}
}

func candidates(r *rand.Rand, a, b string) []string {
	out := []string{instantiate(r, a), instantiate(r, b)}
	for range 8 {
		out = append(out, randName(r), instantiate(r, a), instantiate(r, b))
	}
	return out
}
