package gate

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Overlap reports whether some path matches both patterns a and b. Patterns
// are clean workspace-relative paths whose segments may hold `*` (any run of
// characters within a segment), `?` (one character) and `[...]` (one
// character of a class); a segment `**` matches zero or more segments. A
// plain path is a pattern matching itself, so Overlap(glob, path) is a match
// test and Overlap(glob, glob) is intersection, in both directions.
//
// A backslash escapes the metacharacter after it (see Literal): `\[id]`
// matches the name "[id]" only. Character classes are treated as `?` (any
// one character): the answer can only err toward overlap, which refuses a
// lease rather than granting two.
// Names are compared byte for byte; Folding.Overlap compares them
// folded.
func Overlap(a, b string) bool { return overlap(a, b, ExactCase) }

// overlap is Overlap with names compared under f.
func overlap(a, b string, f Folding) bool {
	a, b = f.form(a), f.form(b) // so that a rune of one is a rune of the other
	a, b, differ := stripCommonLiterals(a, b, f)
	switch {
	case differ:
		return false
	case f.Equal(a, b):
		return true
	case !IsGlob(a) && !IsGlob(b):
		return false // distinct plain paths
	case !hasDoubleStar(a) && !hasDoubleStar(b):
		return segsOverlap(a, b, f)
	}
	var bufA, bufB [16]string
	var memo [256]byte
	o := overlapper{a: appendSegs(bufA[:0], a), b: appendSegs(bufB[:0], b), fold: f}
	if size := (len(o.a) + 1) * (len(o.b) + 1); size <= len(memo) {
		o.memo = memo[:size]
	} else {
		o.memo = make([]byte, size)
	}
	return o.segs(0, 0)
}

// stripCommonLiterals drops the leading segments that are literal and equal
// in both patterns, keeping at least the last segment of each. A leading
// literal segment that differs decides: no overlap.
func stripCommonLiterals(a, b string, f Folding) (string, string, bool) {
	for {
		sa, ra, moreA := strings.Cut(a, "/")
		sb, rb, moreB := strings.Cut(b, "/")
		if IsGlob(sa) || IsGlob(sb) {
			return a, b, false
		}
		if !f.Equal(sa, sb) {
			return a, b, true
		}
		if !moreA || !moreB {
			return a, b, false
		}
		a, b = ra, rb
	}
}

// hasDoubleStar reports whether a pattern has a "**" segment.
func hasDoubleStar(p string) bool {
	return p == "**" || strings.HasPrefix(p, "**/") || strings.HasSuffix(p, "/**") || strings.Contains(p, "/**/")
}

// segsOverlap is Overlap for patterns without "**": same number of
// segments, overlapping pairwise. It allocates nothing.
func segsOverlap(a, b string, f Folding) bool {
	for {
		sa, ra, moreA := strings.Cut(a, "/")
		sb, rb, moreB := strings.Cut(b, "/")
		if moreA != moreB || !segOverlap(sa, sb, f) {
			return false
		}
		if !moreA {
			return true
		}
		a, b = ra, rb
	}
}

func appendSegs(dst []string, p string) []string {
	for {
		seg, rest, more := strings.Cut(p, "/")
		dst = append(dst, seg)
		if !more {
			return dst
		}
		p = rest
	}
}

// Match reports whether the plain path p matches pattern.
func Match(pattern, p string) bool { return Overlap(pattern, p) }

type overlapper struct {
	a, b []string
	memo []byte // per (i, j): 0 unknown, 1 false (or being decided), 2 true
	fold Folding
}

// segs reports whether a[i:] and b[j:] have a common match.
func (o *overlapper) segs(i, j int) bool {
	n, m := len(o.a), len(o.b)
	if i == n && j == m {
		return true
	}
	aStar := i < n && o.a[i] == "**"
	bStar := j < m && o.b[j] == "**"
	if !aStar && !bStar {
		return i < n && j < m && segOverlap(o.a[i], o.b[j], o.fold) && o.segs(i+1, j+1)
	}
	key := i*(m+1) + j
	if v := o.memo[key]; v != 0 {
		return v == 2
	}
	o.memo[key] = 1 // cycle guard
	v := o.star(i, j, aStar, bStar)
	if v {
		o.memo[key] = 2
	}
	return v
}

// star handles a "**" at a[i] or b[j]: it matches nothing, or it absorbs the
// segment the other side matches.
func (o *overlapper) star(i, j int, aStar, bStar bool) bool {
	n, m := len(o.a), len(o.b)
	if aStar && (o.segs(i+1, j) || (j < m && !bStar && o.segs(i, j+1))) {
		return true
	}
	return bStar && (o.segs(i, j+1) || (i < n && !aStar && o.segs(i+1, j)))
}

// segOverlap reports whether some segment matches both segment globs.
func segOverlap(a, b string, f Folding) bool {
	if f.Equal(a, b) {
		return true
	}
	if !IsGlob(a) && !IsGlob(b) || literalEndsDiffer(a, b, f) {
		return false
	}
	var bufA, bufB [32]token
	return charOverlap(appendTokens(bufA[:0], a), appendTokens(bufB[:0], b), f)
}

// literalEndsDiffer reports whether two segment globs start or end with
// plain ASCII characters that disagree, which rules out a common match
// before any tokenizing. Bytes after the last of `*?[]\` are literals. A
// folded letter may take another number of bytes, but only beyond ASCII,
// where both scans stop.
func literalEndsDiffer(a, b string, f Folding) bool {
	for i := 0; i < len(a) && i < len(b) && plainASCII(a[i]) && plainASCII(b[i]); i++ {
		if !sameASCII(a[i], b[i], f) {
			return true
		}
	}
	for i, j := len(a)-1, len(b)-1; i >= 0 && j >= 0 && plainASCII(a[i]) && plainASCII(b[j]); i, j = i-1, j-1 {
		if !sameASCII(a[i], b[j], f) {
			return true
		}
	}
	return false
}

// sameASCII reports whether ASCII bytes a and b are one character under f.
func sameASCII(a, b byte, f Folding) bool {
	return a == b || f.foldsCase() && upperASCII(a) == upperASCII(b)
}

// plainASCII reports whether c is an ASCII character that stands for
// itself wherever it is. A backslash may escape the character after it,
// so it is not.
func plainASCII(c byte) bool {
	return c < utf8.RuneSelf && c != '*' && c != '?' && c != '[' && c != ']' && c != '\\'
}

// token is one element of a segment glob: a literal character, any one
// character, or any run of characters. Characters are runes, as in
// path.Match: `?` matches "é" whole.
type token struct {
	kind byte // 'c' literal, '?' one, '*' run
	c    rune
}

// appendTokens appends the tokens of segment glob s to ts.
func appendTokens(ts []token, s string) []token {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*':
			if len(ts) == 0 || ts[len(ts)-1].kind != '*' {
				ts = append(ts, token{kind: '*'})
			}
		case '?':
			ts = append(ts, token{kind: '?'})
		case '[':
			n := classLen(s[i:])
			if n == 0 {
				ts = append(ts, token{kind: 'c', c: '['})
				continue
			}
			ts = append(ts, token{kind: '?'})
			i += n - 1
		case '\\':
			n, c := escapeAt(s, i)
			switch n {
			case 2:
				ts = append(ts, token{kind: 'c', c: rune(c)})
			case 4:
				ts = append(ts, token{kind: 'c', c: byteRune(c)})
			default:
				ts = append(ts, token{kind: 'c', c: '\\'})
				n = 1
			}
			i += n - 1
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			ts = append(ts, token{kind: 'c', c: r})
			i += size - 1
		}
	}
	return ts
}

// byteRune is the character a byte escape `\xhh` stands for in a match:
// one beyond Unicode's, so that it is one character, equal only to the
// same byte.
func byteRune(c byte) rune { return unicode.MaxRune + 1 + rune(c) }

// charOverlap decides whether two token lists share a match, by dynamic
// programming over (i, j): reach[i][j] means some string takes a to i and b
// to j.
func charOverlap(a, b []token, f Folding) bool {
	n, m := len(a), len(b)
	reach := make([]bool, (n+1)*(m+1))
	at := func(i, j int) *bool { return &reach[i*(m+1)+j] }
	*at(0, 0) = true
	for i := 0; i <= n; i++ {
		for j := 0; j <= m; j++ {
			if !*at(i, j) {
				continue
			}
			// A "*" may match the empty string.
			if i < n && a[i].kind == '*' {
				*at(i+1, j) = true
			}
			if j < m && b[j].kind == '*' {
				*at(i, j+1) = true
			}
			if i < n && j < m {
				step(a[i], b[j], i, j, at, f)
			}
		}
	}
	return *at(n, m)
}

// step consumes one common character from state (i, j).
func step(x, y token, i, j int, at func(int, int) *bool, f Folding) {
	if x.kind == 'c' && y.kind == 'c' && !f.sameRune(x.c, y.c) {
		return
	}
	ni, nj := i+1, j+1
	if x.kind == '*' {
		ni = i // a run stays to match more
	}
	if y.kind == '*' {
		nj = j
	}
	if ni == i && nj == j {
		return // both runs: consuming a char changes nothing
	}
	*at(ni, nj) = true
}
