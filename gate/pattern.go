package gate

import "strings"

// Overlap reports whether some path matches both patterns a and b. Patterns
// are clean workspace-relative paths whose segments may hold `*` (any run of
// characters within a segment), `?` (one character) and `[...]` (one
// character of a class); a segment `**` matches zero or more segments. A
// plain path is a pattern matching itself, so Overlap(glob, path) is a match
// test and Overlap(glob, glob) is intersection, in both directions.
//
// Character classes are treated as `?` (any one character): the answer can
// only err toward overlap, which refuses a lease rather than granting two.
func Overlap(a, b string) bool {
	if a == b {
		return true
	}
	o := overlapper{a: strings.Split(a, "/"), b: strings.Split(b, "/")}
	return o.segs(0, 0)
}

// Match reports whether the plain path p matches pattern.
func Match(pattern, p string) bool { return Overlap(pattern, p) }

type overlapper struct {
	a, b []string
	memo map[[2]int]bool // only allocated for patterns with "**"
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
		return i < n && j < m && segOverlap(o.a[i], o.b[j]) && o.segs(i+1, j+1)
	}
	key := [2]int{i, j}
	if v, ok := o.memo[key]; ok {
		return v
	}
	if o.memo == nil {
		o.memo = make(map[[2]int]bool)
	}
	o.memo[key] = false // cycle guard
	v := o.star(i, j, aStar, bStar)
	o.memo[key] = v
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
func segOverlap(a, b string) bool {
	if a == b {
		return true
	}
	if !IsGlob(a) && !IsGlob(b) {
		return false
	}
	return charOverlap(tokens(a), tokens(b))
}

// token is one element of a segment glob: a literal byte, any one byte, or
// any run of bytes.
type token struct {
	kind byte // 'c' literal, '?' one, '*' run
	c    byte
}

func tokens(s string) []token {
	ts := make([]token, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*':
			if len(ts) == 0 || ts[len(ts)-1].kind != '*' {
				ts = append(ts, token{kind: '*'})
			}
		case '?':
			ts = append(ts, token{kind: '?'})
		case '[':
			end := strings.IndexByte(s[i+1:], ']')
			if end < 0 {
				ts = append(ts, token{kind: 'c', c: '['})
				continue
			}
			ts = append(ts, token{kind: '?'})
			i += end + 1
		default:
			ts = append(ts, token{kind: 'c', c: s[i]})
		}
	}
	return ts
}

// charOverlap decides whether two token lists share a match, by dynamic
// programming over (i, j): reach[i][j] means some string takes a to i and b
// to j.
func charOverlap(a, b []token) bool {
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
				step(a[i], b[j], i, j, at)
			}
		}
	}
	return *at(n, m)
}

// step consumes one common character from state (i, j).
func step(x, y token, i, j int, at func(int, int) *bool) {
	if x.kind == 'c' && y.kind == 'c' && x.c != y.c {
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
