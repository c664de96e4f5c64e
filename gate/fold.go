package gate

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Folding is how the workspace's volume compares names: byte for byte, or
// with case folded, where "new/Bar.go" and "new/BAR.go" are one file
// (Windows; macOS unless the volume was formatted case-sensitive), or
// with Unicode normalization folded, where "café" with "é" composed
// (U+00E9) and decomposed ("e" and U+0301) is one file (APFS and HFS+,
// whether or not they fold case), or both. A table given a folding takes
// two spellings of one path for one path: one lease excludes the other
// spelling's writers, and the lease keeps the spelling it was granted
// with. The coordinator takes it from the workspace; a table replaying a
// ledger is given the same, though Apply accepts and refuses the same
// events under every folding (see Table.grant).
//
// FoldCase is simple Unicode case folding, rune for rune, as
// strings.EqualFold: two names are one when each rune of one is in the
// case orbit (unicode.SimpleFold) of the other's rune at the same place,
// so "k", "K" and the Kelvin sign "K" are one letter. A byte that is not
// UTF-8 is compared as itself. FoldNormalization compares names by their
// canonical composition (NFC), so canonically equivalent spellings are one
// name; with both, names are case folded after they are composed.
//
// A Folding is a value, not a function handed in: two tables, a ledger's
// replay and the git guard compare paths by the same rule exactly when
// their Foldings are equal, and each names its rule when printed.
type Folding uint8

const (
	// ExactCase tells names apart by every byte: Linux and the BSDs.
	ExactCase Folding = 0
	// FoldCase takes names that differ only in case for one name.
	FoldCase Folding = 1 << 0
	// FoldNormalization takes names that differ only in Unicode
	// normalization (composed or decomposed accents) for one name.
	FoldNormalization Folding = 1 << 1
)

func (f Folding) String() string {
	switch f {
	case ExactCase:
		return "exact case"
	case FoldCase:
		return "case folded"
	case FoldNormalization:
		return "normalization folded"
	}
	return "case and normalization folded"
}

// foldsCase reports whether f takes names that differ in case for one.
func (f Folding) foldsCase() bool { return f&FoldCase != 0 }

// form returns s composed (NFC) where f folds normalization and s holds
// more than ASCII; s itself otherwise, and when it is composed already
// (norm returns it without copying then).
func (f Folding) form(s string) string {
	if f&FoldNormalization == 0 {
		return s
	}
	return composed(s)
}

// composed is s in NFC, s itself when it is ASCII.
func composed(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return norm.NFC.String(s)
		}
	}
	return s
}

// Equal reports whether a and b name one path under f.
func (f Folding) Equal(a, b string) bool { return a == b || f != ExactCase && f.equal(a, b) }

// equal is Equal where f folds something.
func (f Folding) equal(a, b string) bool {
	a, b = f.form(a), f.form(b)
	if !f.foldsCase() {
		return a == b
	}
	return foldEqual(a, b)
}

// Overlap is gate.Overlap with names compared under f.
func (f Folding) Overlap(a, b string) bool { return overlap(a, b, f) }

// Match is gate.Match with names compared under f.
func (f Folding) Match(pattern, p string) bool { return overlap(pattern, p, f) }

// Covers is Scope.Covers with names compared under f.
func (f Folding) Covers(s Scope, p string) bool {
	if f == ExactCase {
		return s.Covers(p)
	}
	return s.anyPath(f.Match, p)
}

// Overlaps is Scope.Overlaps with names compared under f.
func (f Folding) Overlaps(s Scope, p string) bool {
	if f == ExactCase {
		return s.Overlaps(p)
	}
	return s.anyPath(f.Overlap, p)
}

// CoversTree is Scope.CoversTree with names compared under f.
func (f Folding) CoversTree(s Scope, dir string) bool {
	return s.anyPath(func(pattern, dir string) bool { return coversTree(pattern, dir, f) }, dir)
}

// Key returns the one string every spelling of the name s under f maps
// to, for a set or map that is to take them for one: s itself under
// ExactCase.
func (f Folding) Key(s string) string { return f.folded(s) }

// foldEqual reports whether a and b are one name with case folded.
func foldEqual(a, b string) bool {
	for a != "" && b != "" {
		if a[0] < utf8.RuneSelf && b[0] < utf8.RuneSelf {
			if upperASCII(a[0]) != upperASCII(b[0]) {
				return false
			}
			a, b = a[1:], b[1:]
			continue
		}
		ra, na := decodeName(a)
		rb, nb := decodeName(b)
		if foldRune(ra) != foldRune(rb) {
			return false
		}
		a, b = a[na:], b[nb:]
	}
	return a == b
}

// invalidRune is what decodeName makes of a byte that is not UTF-8: a
// value above unicode.MaxRune, one per byte, which no case orbit holds.
const invalidRune = unicode.MaxRune + 1

// decodeName decodes the first rune of s, taking a byte that is not UTF-8
// as itself.
func decodeName(s string) (rune, int) {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && n == 1 {
		return invalidRune + rune(s[0]), 1
	}
	return r, n
}

// foldRune is the one rune that stands for r's case orbit: the smallest
// rune in it ("K" for "k", "K" and the Kelvin sign). Two runes fold to one
// exactly when strings.EqualFold takes them for one.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		return rune(upperASCII(byte(r)))
	}
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return least
}

func upperASCII(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// foldHash is segHash of s with case folded: two names that foldEqual has
// for one hash alike.
func foldHash(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			h = (h ^ uint32(upperASCII(c))) * 16777619
			i++
			continue
		}
		r, n := decodeName(s[i:])
		h = (h ^ uint32(foldRune(r))) * 16777619
		i += n
	}
	return h
}

// appendFolded appends s with each rune replaced by foldRune's and each
// byte that is not UTF-8 kept: the map key of every spelling of s.
func appendFolded(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			dst = append(dst, upperASCII(c))
			i++
			continue
		}
		r, n := decodeName(s[i:])
		if r >= invalidRune {
			dst = append(dst, s[i])
		} else {
			dst = utf8.AppendRune(dst, foldRune(r))
		}
		i += n
	}
	return dst
}

// folded returns the map key of s: s itself under ExactCase.
func (f Folding) folded(s string) string {
	if f == ExactCase {
		return s
	}
	return string(f.appendKey(make([]byte, 0, len(s)), s))
}

// appendKey appends the map key of s under f, which folds something.
func (f Folding) appendKey(dst []byte, s string) []byte {
	s = f.form(s)
	if !f.foldsCase() {
		return append(dst, s...)
	}
	return appendFolded(dst, s)
}

// hash is the hash of name s under f.
func (f Folding) hash(s string) uint32 {
	if f == ExactCase {
		return segHash(s)
	}
	return f.foldedHash(s)
}

// foldedHash is hash where f folds something.
func (f Folding) foldedHash(s string) uint32 {
	s = f.form(s)
	if f.foldsCase() {
		return foldHash(s)
	}
	return segHash(s)
}

// sameRune reports whether runes a and b are one letter under f. Where f
// folds normalization the runes are those of composed names (overlap
// composes its patterns first).
func (f Folding) sameRune(a, b rune) bool {
	return a == b || f.foldsCase() && foldRune(a) == foldRune(b)
}
