package gate

import (
	"fmt"
	"regexp"
	"strings"
)

// DefaultPairRules pair a Go file with its test, both ways.
var DefaultPairRules = []string{"**/{name}.go -> **/{name}_test.go"}

// PairRule pairs a source path with its test path: acquiring either takes
// both, atomically. Written "FROM -> TO" where `{name}` matches within one
// segment and a leading `**/` matches any directory prefix (reused on the
// other side), e.g. `src/{name}.ts -> tests/{name}.test.ts`.
type PairRule struct {
	From, To string
	from, to *regexp.Regexp
	// fromEnd and toEnd are what a path matching From or To ends with (the
	// text after the last {name}): most paths end otherwise and are
	// refused without running the regexp.
	fromEnd, toEnd string
}

// CompilePairRules parses rules written "FROM -> TO".
func CompilePairRules(rules []string) ([]PairRule, error) {
	out := make([]PairRule, 0, len(rules))
	for _, r := range rules {
		from, to, ok := strings.Cut(r, "->")
		from, to = strings.TrimSpace(from), strings.TrimSpace(to)
		if !ok || from == "" || to == "" {
			return nil, fmt.Errorf("pair rule %q: want \"FROM -> TO\"", r)
		}
		pr := PairRule{From: from, To: to, fromEnd: literalEnd(from), toEnd: literalEnd(to)}
		var err error
		if pr.from, err = pairRegexp(from); err != nil {
			return nil, fmt.Errorf("pair rule %q: %w", r, err)
		}
		if pr.to, err = pairRegexp(to); err != nil {
			return nil, fmt.Errorf("pair rule %q: %w", r, err)
		}
		if strings.HasPrefix(from, "**/") != strings.HasPrefix(to, "**/") {
			return nil, fmt.Errorf("pair rule %q: a leading **/ must be on both sides", r)
		}
		out = append(out, pr)
	}
	return out, nil
}

// literalEnd is the text after the last {name} of a rule's side.
func literalEnd(p string) string {
	i := strings.LastIndex(p, "{name}")
	if i < 0 {
		return ""
	}
	return p[i+len("{name}"):]
}

func pairRegexp(p string) (*regexp.Regexp, error) {
	if !strings.Contains(p, "{name}") {
		return nil, fmt.Errorf("%q has no {name}", p)
	}
	var b strings.Builder
	b.WriteString("^")
	rest := p
	if strings.HasPrefix(rest, "**/") {
		b.WriteString(`(?P<dir>(?:[^/]+/)*)`)
		rest = rest[3:]
	}
	parts := strings.Split(rest, "{name}")
	for i, part := range parts {
		if i > 0 {
			b.WriteString(`(?P<name>[^/]+?)`)
		}
		b.WriteString(regexp.QuoteMeta(part))
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// ExpandPairs returns paths with the pair of each plain path added (globs
// are not expanded), originals first, without duplicates. A path that
// matches a rule's TO side is a test file and pulls in its FROM side; any
// other path matching FROM pulls in TO. A pair that does not exist on disk
// is still leased: that is harmless and keeps the decision free of I/O.
func ExpandPairs(paths []string, rules []PairRule) []string {
	out := append([]string(nil), paths...)
	var seen map[string]bool // made once a pair is found
	for _, p := range paths {
		if IsGlob(p) {
			continue
		}
		for _, r := range rules {
			q, ok := r.pair(p)
			if !ok {
				continue
			}
			if seen == nil {
				seen = make(map[string]bool, len(paths)+1)
				for _, p := range paths {
					seen[p] = true
				}
			}
			if !seen[q] {
				seen[q] = true
				out = append(out, q)
			}
		}
	}
	return out
}

func (r PairRule) pair(p string) (string, bool) {
	if strings.HasSuffix(p, r.toEnd) {
		if m := r.to.FindStringSubmatch(p); m != nil {
			return r.fill(r.From, r.to, m), true
		}
	}
	if strings.HasSuffix(p, r.fromEnd) {
		if m := r.from.FindStringSubmatch(p); m != nil {
			return r.fill(r.To, r.from, m), true
		}
	}
	return "", false
}

func (r PairRule) fill(tmpl string, re *regexp.Regexp, m []string) string {
	name := m[re.SubexpIndex("name")]
	dir := ""
	if i := re.SubexpIndex("dir"); i >= 0 {
		dir = m[i]
	}
	s := strings.ReplaceAll(tmpl, "{name}", name)
	if strings.HasPrefix(s, "**/") {
		s = dir + s[3:]
	}
	return s
}
