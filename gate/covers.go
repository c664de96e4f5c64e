package gate

// Covers reports whether s covers the path p: s is the full scope, or one
// of its paths or globs matches p (Match; a p holding glob characters is
// matched as a pattern, so for a glob this is overlap, not containment).
// Only paths count here; a lease also covers the files named in Files
// under every other name, which Table.Overlapping answers.
func (s Scope) Covers(p string) bool { return s.anyPath(Match, p) }

// Overlaps reports whether s and p, a path or a glob, may both name one
// path: s is the full scope, or one of its paths or globs overlaps p.
func (s Scope) Overlaps(p string) bool { return s.anyPath(Overlap, p) }

// CoversTree reports whether s covers dir and everything beneath it: s is
// the full scope, or one of its paths is "**" or "P/**" with P dir or a
// directory above it (see CoversTree).
func (s Scope) CoversTree(dir string) bool { return s.anyPath(CoversTree, dir) }

// anyPath reports whether s is the full scope or test holds for one of its
// paths and p.
func (s Scope) anyPath(test func(pattern, p string) bool, p string) bool {
	if s.Type == ScopeFull {
		return true
	}
	for _, q := range s.Paths {
		if test(q, p) {
			return true
		}
	}
	return false
}
