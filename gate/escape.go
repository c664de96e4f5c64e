package gate

import "strings"

// A pattern names a file whose name holds a glob metacharacter by
// escaping it with a backslash: `\*`, `\?`, `\[`, `\]` and `\\` stand for
// the character itself. A backslash before any other character, or at the
// end, is a backslash: a name such as `a\b` is its own pattern, as it was
// before escapes existed, and ledgers holding one replay unchanged.
//
// One name has one spelling as a pattern, the canonical one, which
// Literal makes and CleanPath restores: a metacharacter `*`, `?` or `[`
// is escaped, `]` is not, and a backslash is escaped only where the
// character after it would otherwise be read as escaped. Names are then
// compared by their spelling, as before, and a literal segment of one
// pattern equals that of another exactly when they name one name.

// escapes reports whether c is a character a backslash escapes.
func escapes(c byte) bool {
	switch c {
	case '*', '?', '[', ']', '\\':
		return true
	}
	return false
}

// isMeta reports whether c, unescaped, is a glob metacharacter.
func isMeta(c byte) bool { return c == '*' || c == '?' || c == '[' }

// escapedAt reports whether p[i] is a backslash escaping p[i+1].
func escapedAt(p string, i int) bool {
	return p[i] == '\\' && i+1 < len(p) && escapes(p[i+1])
}

// IsGlob reports whether p has glob metacharacters: `*`, `?` or `[` not
// escaped by a backslash.
func IsGlob(p string) bool {
	for i := 0; i < len(p); i++ {
		if special[p[i]] {
			return p[i] != '\\' || globAfter(p, i)
		}
	}
	return false
}

// special marks the bytes IsGlob stops at: the metacharacters and the
// backslash.
var special = [256]bool{'*': true, '?': true, '[': true, '\\': true}

// hasSpecial reports whether p holds a metacharacter or a backslash.
func hasSpecial(p string) bool {
	for i := 0; i < len(p); i++ {
		if special[p[i]] {
			return true
		}
	}
	return false
}

// globAfter is IsGlob for p from its first backslash, at i. It is apart,
// and not inlined, so that IsGlob's loop, which nearly every path runs
// to its end, stays one table look-up per byte: as fast as before
// escapes (BenchmarkDecideAcquireRelease).
//
//go:noinline
func globAfter(p string, i int) bool {
	for ; i < len(p); i++ {
		switch {
		case escapedAt(p, i):
			i++
		case isMeta(p[i]):
			return true
		}
	}
	return false
}

// Literal is the pattern matching exactly the path p, a name as the file
// system spells it: p with `*`, `?` and `[` escaped, and each backslash
// before one of `*?[]\`. A path without them, nearly every one, is its
// own pattern. Every path a write names becomes a pattern through
// Literal, so that "app/[id]/page.tsx" leases that file and not
// "app/a/page.tsx".
func Literal(p string) string {
	if !hasSpecial(p) {
		return p
	}
	b := make([]byte, 0, len(p)+4)
	return string(appendLiteral(b, p, false))
}

// appendLiteral appends the literal run s, escaped, to dst. metaNext says
// that an unescaped metacharacter follows the run, before which a
// trailing backslash must be escaped.
func appendLiteral(dst []byte, s string, metaNext bool) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isMeta(c):
			dst = append(dst, '\\')
		case c == '\\' && (i+1 < len(s) && escapes(s[i+1]) || i+1 == len(s) && metaNext):
			dst = append(dst, '\\')
		}
		dst = append(dst, c)
	}
	return dst
}

// Unescape is the name a pattern without globs spells: its escapes
// undone. It is how a literal path in a lease is found on disk. A
// pattern with globs keeps them; only its escapes are undone.
func Unescape(p string) string {
	if strings.IndexByte(p, '\\') < 0 {
		return p
	}
	b := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		if escapedAt(p, i) {
			i++
		}
		b = append(b, p[i])
	}
	return string(b)
}

// LiteralPrefix is the leading directories of pattern p that hold no
// glob, unescaped, with a trailing slash: the directory on disk under
// which everything p matches lies. It is p unescaped when p has no glob.
func LiteralPrefix(p string) string {
	for i := 0; i < len(p); i++ {
		switch {
		case escapedAt(p, i):
			i++
		case isMeta(p[i]):
			return Unescape(p[:strings.LastIndexByte(p[:i], '/')+1])
		}
	}
	return Unescape(p)
}

// canonical is pattern p spelt canonically (see Literal): its literal
// runs escaped as Literal escapes them, its globs kept. Classes are
// kept as written.
func canonical(p string) string {
	if strings.IndexByte(p, '\\') < 0 {
		return p
	}
	out := make([]byte, 0, len(p))
	run := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case escapedAt(p, i):
			run = append(run, p[i+1])
			i++
			continue
		case !isMeta(c):
			run = append(run, c)
			continue
		}
		out = appendLiteral(out, string(run), true)
		run = run[:0]
		end := i + 1
		if c == '[' {
			if n := classLen(p[i:]); n > 0 {
				end = i + n
			}
		}
		out = append(out, p[i:end]...)
		i = end - 1
	}
	return string(appendLiteral(out, string(run), false))
}

// classLen is the length of the character class s starts with, through
// its closing `]` (an escaped `]` does not close it), or 0 when s has
// none, in which case its `[` is taken for itself.
func classLen(s string) int {
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '/':
			return 0
		case escapedAt(s, i):
			i++
		case s[i] == ']':
			return i + 1
		}
	}
	return 0
}
