package workspace

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/leasegate/leasegate/gate"
)

// pathRules are how a platform spells and compares absolute paths: which
// bytes separate elements and whether names that differ only in case name
// one file. Each platform's file has native; the logic below takes the
// rules as a value, so that the tests on one platform run the others'.
type pathRules struct {
	// sep is the separator of a clean path: '/' on Unix, '\\' on Windows.
	sep byte
	// alt is a second separator the platform accepts, or 0: Windows takes
	// "c:/Users/me" as "C:\Users\me" (git prints its paths so).
	alt byte
	// fold makes names that differ only in case one name, as NTFS, APFS
	// and HFS+ do by default. unicode.ToUpper stands in for their case
	// tables; they agree on every letter a path is likely to hold.
	fold bool
	// normalizes makes names that differ only in Unicode normalization
	// (an accent composed or decomposed) one name, as APFS and HFS+ do
	// whether or not they fold case. Only the lease table's Folding takes
	// it: paths Under compares come spelt as the disk keeps them
	// (ResolveExisting) or as given, where APFS keeps them as given too.
	normalizes bool
	// volumes says that a path may start with a volume: a drive ("C:") or
	// a UNC share ("\\server\share").
	volumes bool
	// lexicalDotDot takes a ".." as removing the element written before
	// it, as Windows does before it looks at the disk, where a Unix kernel
	// steps back from the directory a symlink there led to.
	lexicalDotDot bool
}

// Folding is how gate is to compare the workspace's relative paths:
// case folded where the platform's rules fold case (Windows; macOS unless
// the volumes Find asked are case-sensitive), Unicode normalization folded
// on macOS, byte for byte on Linux and the BSDs. The coordinator gives it
// to its lease table, so that two spellings of a file not yet created are
// one lease.
func (w *Workspace) Folding() gate.Folding { return native().folding() }

// folding is the gate.Folding of the rules r.
func (r pathRules) folding() gate.Folding {
	f := gate.ExactCase
	if r.fold {
		f |= gate.FoldCase
	}
	if r.normalizes {
		f |= gate.FoldNormalization
	}
	return f
}

// Under returns p relative to base ("." for base itself), slash separated
// on every platform, if p is base or beneath it. It compares strings only:
// base and p are clean absolute paths. A sibling sharing base's prefix
// (/ws and /wsx) is not beneath it; an empty base holds nothing. On
// Windows a drive letter or name spelt in another case and "/" for "\"
// are the same path, and a relative path holding "\" costs one allocation;
// elsewhere it allocates nothing. On macOS a name spelt in another case is
// the same name unless the workspace's volume is case-sensitive.
func Under(base, p string) (string, bool) {
	return native().under(base, p)
}

// under is Under by the rules r.
func (r pathRules) under(base, p string) (string, bool) {
	n, ok := len(base), strings.HasPrefix(p, base)
	if r.varies() {
		n, ok = r.prefix(base, p)
	}
	switch {
	case !ok || base == "":
		return "", false
	case n == len(p):
		return ".", true
	case r.isSep(base[len(base)-1]): // a root: "/", `C:\`, `\\server\share\`
		return r.slash(p[n:]), true
	case r.isSep(p[n]):
		return r.slash(p[n+1:]), true
	}
	return "", false
}

// prefix reports whether p starts with base by the rules r, where
// separators or case vary, and how many bytes of p that start takes (a
// case-folded letter may be spelt with another number of bytes).
func (r pathRules) prefix(base, p string) (int, bool) {
	i, j := 0, 0
	for i < len(base) {
		if j == len(p) {
			return 0, false
		}
		if base[i] < utf8.RuneSelf && p[j] < utf8.RuneSelf {
			if !r.sameByte(base[i], p[j]) {
				return 0, false
			}
			i, j = i+1, j+1
			continue
		}
		a, na := utf8.DecodeRuneInString(base[i:])
		b, nb := utf8.DecodeRuneInString(p[j:])
		if a != b && (!r.fold || unicode.ToUpper(a) != unicode.ToUpper(b)) {
			return 0, false
		}
		i, j = i+na, j+nb
	}
	return j, true
}

// sameByte reports whether two ASCII bytes of a path are one by the rules.
func (r pathRules) sameByte(a, b byte) bool {
	switch {
	case a == b:
		return true
	case r.isSep(a) && r.isSep(b):
		return true
	}
	return r.fold && upperASCII(a) == upperASCII(b)
}

// same reports whether two names or relative paths are one by the rules:
// "LEASEGATE.JSON" is leasegate.json on Windows.
func (r pathRules) same(a, b string) bool {
	return a == b || (r.varies() && r.sameFolded(a, b))
}

// varies reports whether one path has several spellings by the rules.
func (r pathRules) varies() bool { return r.fold || r.alt != 0 }

// sameFolded is same where separators or case vary. It is kept out of
// line so that same inlines where case counts: the classifier calls it for
// every path the sidecar is asked about.
//
//go:noinline
func (r pathRules) sameFolded(a, b string) bool {
	n, ok := r.prefix(a, b)
	return ok && n == len(b)
}

func (r pathRules) isSep(c byte) bool {
	return c == r.sep || (r.alt != 0 && c == r.alt)
}

// slash spells a relative path with "/", as gate and the ledger keep it.
func (r pathRules) slash(rel string) string {
	if r.sep == '/' {
		return rel
	}
	return strings.ReplaceAll(rel, string(r.sep), "/")
}

func upperASCII(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// join makes the relative path p absolute against the clean absolute cwd
// as the platform does: on Windows "\x" is x at the root of cwd's volume,
// and "D:x" is x in cwd when cwd is on D:. The current directory of
// another drive is the process's own affair, so "D:x" from C: is taken
// from D:'s root. p is kept as written otherwise: a ".." in it is applied
// after the symlinks before it are followed.
func (r pathRules) join(cwd, p string) string {
	if v := r.volume(p); v != "" {
		if r.same(v, r.volume(cwd)) {
			return cwd + string(r.sep) + p[len(v):]
		}
		return v + string(r.sep) + p[len(v):]
	}
	if p != "" && r.isSep(p[0]) {
		return r.volume(cwd) + p
	}
	return cwd + string(r.sep) + p
}

// volume returns the volume p starts with ("C:", "\\server\share"), or
// "" where the rules have none.
func (r pathRules) volume(p string) string {
	switch {
	case !r.volumes:
		return ""
	case len(p) >= 2 && p[1] == ':' && upperASCII(p[0]) >= 'A' && upperASCII(p[0]) <= 'Z':
		return p[:2]
	case len(p) < 3 || !r.isSep(p[0]) || !r.isSep(p[1]) || r.isSep(p[2]):
		return ""
	}
	server := 2 + r.indexSep(p[2:])
	if server < 2 || server+1 == len(p) || r.isSep(p[server+1]) {
		return "" // a server without a share
	}
	if share := r.indexSep(p[server+1:]); share >= 0 {
		return p[:server+1+share]
	}
	return p
}

// HasDotDot reports whether p has a ".." element, by the platform's
// separators: on Windows "src\..\x" has one, as "src/../x" has. The volume
// p starts with is taken off first, so "C:..\x" has one.
func HasDotDot(p string) bool { return native().hasDotDot(p) }

// hasDotDot is HasDotDot by the rules r.
func (r pathRules) hasDotDot(p string) bool {
	p = p[len(r.volume(p)):]
	for {
		i := r.indexSep(p)
		if i < 0 {
			return p == ".."
		}
		if p[:i] == ".." {
			return true
		}
		p = p[i+1:]
	}
}

// indexSep is the index of the first separator in p, or -1.
func (r pathRules) indexSep(p string) int {
	for i := 0; i < len(p); i++ {
		if r.isSep(p[i]) {
			return i
		}
	}
	return -1
}
