package gate

import (
	"path"
	"strings"
	"unicode/utf8"
)

// CleanPath validates and normalizes a workspace-relative path or pattern:
// slash separated, no leading "/", no "." or ".." segments once cleaned, no
// NUL, at most MaxPathLen bytes. A trailing "/" means a directory and becomes
// "dir/**". Escapes are made canonical (see Literal), so that one name is
// spelt one way: `\]` becomes `]`. It refuses with an *InputError naming
// what was wrong: an absolute path or one escaping through ".." is
// PATH_OUTSIDE_WORKSPACE, anything else INPUT_SCHEMA_INVALID.
func CleanPath(p string) (string, error) {
	switch {
	case p == "":
		return "", inputErrorf(ReasonInputInvalid, "empty path")
	case len(p) > MaxPathLen:
		return "", inputErrorf(ReasonInputInvalid, "path of %d bytes is over the %d byte limit", len(p), MaxPathLen)
	case strings.IndexByte(p, 0) >= 0:
		return "", inputErrorf(ReasonInputInvalid, "path %q contains a NUL byte", p)
	case strings.HasPrefix(p, "/"):
		return "", inputErrorf(ReasonOutsideWorkspace, "path %q is absolute; want a path relative to the workspace root", p)
	}
	dir := strings.HasSuffix(p, "/")
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", inputErrorf(ReasonOutsideWorkspace, "path %q escapes the workspace", p)
	}
	if c == "." {
		return "", inputErrorf(ReasonInputInvalid, "path %q names the workspace root; use the full scope for the whole workspace", p)
	}
	if dir && !strings.HasSuffix(c, "**") {
		c += "/**"
	}
	return canonical(c), nil
}

// WirePath is the pattern p as the API's and the ledger's JSON can carry
// it: p itself when it is valid UTF-8, as every pattern Literal makes is;
// else with each byte that is not part of a valid UTF-8 character spelt
// `\xhh` (see Literal), which encoding/json would turn into U+FFFD and so
// give two names one lease.
func WirePath(p string) string {
	if utf8.ValidString(p) {
		return p
	}
	return canonical(p)
}

// Subtree is the pattern covering the directory dir, a path as the file
// system names it, and everything beneath it: what a directory rename or
// removal mutates. dir is taken literally (Literal): a directory named
// "[id]" is that directory, not the class it spells.
func Subtree(dir string) string {
	if dir == "" || dir == "." {
		return "**"
	}
	return Literal(strings.TrimSuffix(dir, "/")) + "/**"
}

// CoversTree reports whether pattern matches dir and every path beneath
// it: "**", or "P/**" where P is dir or a directory above it. Any other
// pattern may leave something beneath dir out.
func CoversTree(pattern, dir string) bool { return coversTree(pattern, dir, ExactCase) }

// coversTree is CoversTree with names compared under f.
func coversTree(pattern, dir string, f Folding) bool {
	if pattern == "**" {
		return true
	}
	prefix, ok := strings.CutSuffix(pattern, "/**")
	if !ok || IsGlob(prefix) {
		return false
	}
	return within(prefix, dir, f)
}

// within reports whether p is dir or a path beneath it, each name compared
// under f. It goes name by name, as a folded name need not be as long as
// the name it stands for.
func within(dir, p string, f Folding) bool {
	for {
		sd, rd, moreD := strings.Cut(dir, "/")
		sp, rp, moreP := strings.Cut(p, "/")
		switch {
		case !f.Equal(sd, sp):
			return false
		case !moreD:
			return true
		case !moreP:
			return false
		}
		dir, p = rd, rp
	}
}
