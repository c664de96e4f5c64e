package gate

// Covers reports whether s covers the path p: s is the full scope, or one
// of its paths or globs matches p (Match; a p holding glob characters is
// matched as a pattern, so for a glob this is overlap, not containment).
// Only paths count here; a lease also covers the files named in Files
// under every other name, which Table.Overlapping answers.
func (s Scope) Covers(p string) bool {
	if s.Type == ScopeFull {
		return true
	}
	for _, q := range s.Paths {
		if Match(q, p) {
			return true
		}
	}
	return false
}

// Overlaps reports whether s and p, a path or a glob, may both name one
// path: s is the full scope, or one of its paths or globs overlaps p.
func (s Scope) Overlaps(p string) bool {
	if s.Type == ScopeFull {
		return true
	}
	for _, q := range s.Paths {
		if Overlap(q, p) {
			return true
		}
	}
	return false
}

// CoversTree reports whether s covers dir and everything beneath it: s is
// the full scope, or one of its paths is "**" or "P/**" with P dir or a
// directory above it (see CoversTree).
func (s Scope) CoversTree(dir string) bool {
	if s.Type == ScopeFull {
		return true
	}
	for _, q := range s.Paths {
		if CoversTree(q, dir) {
			return true
		}
	}
	return false
}
