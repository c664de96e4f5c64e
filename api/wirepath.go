package api

import (
	"slices"
	"unicode/utf8"

	"github.com/leasegate/leasegate/gate"
)

// wirePaths is ps as JSON can carry them (gate.WirePath): a pattern
// holding a byte that is not valid UTF-8 is sent with the byte escaped,
// not turned into U+FFFD, so that it still names one file. It is ps
// itself when nothing needs escaping, and never ps changed in place (the
// slice is the caller's).
func wirePaths(ps []string) []string {
	i := slices.IndexFunc(ps, func(p string) bool { return !utf8.ValidString(p) })
	if i < 0 {
		return ps
	}
	out := slices.Clone(ps)
	for j := i; j < len(out); j++ {
		out[j] = gate.WirePath(out[j])
	}
	return out
}

// wireFiles is fs as JSON can carry them, as wirePaths.
func wireFiles(fs []gate.File) []gate.File {
	i := slices.IndexFunc(fs, func(f gate.File) bool { return !utf8.ValidString(f.Path) })
	if i < 0 {
		return fs
	}
	out := slices.Clone(fs)
	for j := i; j < len(out); j++ {
		out[j].Path = gate.WirePath(out[j].Path)
	}
	return out
}

// wireScope is sc as JSON can carry it, as wirePaths.
func wireScope(sc gate.Scope) gate.Scope {
	sc.Paths, sc.Files = wirePaths(sc.Paths), wireFiles(sc.Files)
	return sc
}
