package gate

import (
	"strings"
	"unicode/utf8"
)

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
//
// A file name is bytes; the API's JSON and the ledger carry text, which
// would turn every byte that is not part of a valid UTF-8 character into
// U+FFFD and so give "a\xff" and "a\xfe" one lease. Such a byte is spelt
// `\xhh`, two lowercase hex digits from 80 to ff, so that a pattern is
// always valid UTF-8 and names one file. A backslash before an "x" and two
// such digits in a name is escaped like one before a metacharacter: the
// name `a\xff`, spelt with a backslash, is the pattern `a\\xff`.

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

// escapedAt reports whether p[i] is a backslash that starts an escape.
func escapedAt(p string, i int) bool {
	n, _ := escapeAt(p, i)
	return n > 0
}

// escapeAt is the length of the escape that starts at p[i], and the byte
// it stands for: a backslash and one of `*?[]\` (2), or a backslash, an
// "x" and two lowercase hex digits from 80 to ff (4); 0 when p[i] starts
// none.
func escapeAt(p string, i int) (n int, c byte) {
	if p[i] != '\\' || i+1 >= len(p) {
		return 0, 0
	}
	if escapes(p[i+1]) {
		return 2, p[i+1]
	}
	if b, ok := hexByte(p, i+1); ok {
		return 4, b
	}
	return 0, 0
}

// hexByte reports whether s[j:] starts with "x" and two lowercase hex
// digits from 80 to ff, and the byte they give.
func hexByte(s string, j int) (byte, bool) {
	if j+3 > len(s) || s[j] != 'x' {
		return 0, false
	}
	hi, lo := strings.IndexByte(hexDigits, s[j+1]), strings.IndexByte(hexDigits, s[j+2])
	if hi < 8 || lo < 0 {
		return 0, false
	}
	return byte(hi<<4 | lo), true
}

// hexDigits are the digits of a byte escape, in order.
const hexDigits = "0123456789abcdef"

// invalidAt reports whether s[j] is a byte that is not part of a valid
// UTF-8 character, which a pattern spells `\xhh`.
func invalidAt(s string, j int) bool {
	if s[j] < utf8.RuneSelf {
		return false
	}
	r, size := utf8.DecodeRuneInString(s[j:])
	return r == utf8.RuneError && size == 1
}

// escapedBefore reports whether a backslash of a name, before s[j], must
// be escaped: s[j] would otherwise be read with it as an escape, or is a
// byte that is spelt with a backslash first.
func escapedBefore(s string, j int) bool {
	_, hex := hexByte(s, j)
	return escapes(s[j]) || hex || invalidAt(s, j)
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
// own pattern. A byte that is not part of a valid UTF-8 character becomes
// `\xhh`, so that the pattern is text and still names p alone. Every path
// a write names becomes a pattern through Literal, so that
// "app/[id]/page.tsx" leases that file and not "app/a/page.tsx".
func Literal(p string) string {
	if !hasSpecial(p) && utf8.ValidString(p) {
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
		case c >= utf8.RuneSelf:
			n := appendByteOrRune(&dst, s[i:])
			i += n - 1
			continue
		case isMeta(c):
			dst = append(dst, '\\')
		case c == '\\' && (i+1 < len(s) && escapedBefore(s, i+1) || i+1 == len(s) && metaNext):
			dst = append(dst, '\\')
		}
		dst = append(dst, c)
	}
	return dst
}

// appendByteOrRune appends to *dst the character s starts with, or, when
// s starts with a byte that is not part of a valid UTF-8 character, its
// escape `\xhh`; it returns how many bytes of s it took.
func appendByteOrRune(dst *[]byte, s string) int {
	if invalidAt(s, 0) {
		*dst = append(*dst, '\\', 'x', hexDigits[s[0]>>4], hexDigits[s[0]&15])
		return 1
	}
	_, size := utf8.DecodeRuneInString(s)
	*dst = append(*dst, s[:size]...)
	return size
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
		if n, c := escapeAt(p, i); n > 0 {
			b = append(b, c)
			i += n - 1
			continue
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
		n, _ := escapeAt(p, i)
		switch {
		case n > 0:
			i += n - 1
		case isMeta(p[i]):
			return Unescape(p[:strings.LastIndexByte(p[:i], '/')+1])
		}
	}
	return Unescape(p)
}

// canonical is pattern p spelt canonically (see Literal): its literal
// runs escaped as Literal escapes them, its globs kept. Classes are
// kept as written. A byte that is not part of a valid UTF-8 character
// is escaped, as Literal escapes it.
func canonical(p string) string {
	if strings.IndexByte(p, '\\') < 0 && utf8.ValidString(p) {
		return p
	}
	out := make([]byte, 0, len(p))
	run := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		c := p[i]
		n, e := escapeAt(p, i)
		switch {
		case n > 0:
			run = append(run, e)
			i += n - 1
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
		for j := i; j < end; {
			j += appendByteOrRune(&out, p[j:end])
		}
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
