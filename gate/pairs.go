package gate

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
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
	// foldFrom and foldTo are from and to with case folded, as FoldCase
	// folds it (regexp's (?i) is simple Unicode folding).
	foldFrom, foldTo *regexp.Regexp
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
		if pr.from, pr.foldFrom, err = pairRegexps(from); err != nil {
			return nil, fmt.Errorf("pair rule %q: %w", r, err)
		}
		if pr.to, pr.foldTo, err = pairRegexps(to); err != nil {
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

// pairRegexps compiles one side of a rule: as written, and with case
// folded.
func pairRegexps(p string) (exact, folded *regexp.Regexp, err error) {
	if !strings.Contains(p, "{name}") {
		return nil, nil, fmt.Errorf("%q has no {name}", p)
	}
	if exact, err = pairRegexp(p, ""); err != nil {
		return nil, nil, err
	}
	folded, err = pairRegexp(p, "(?i)")
	return exact, folded, err
}

func pairRegexp(p, flags string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString(flags + "^")
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
// Names are compared byte for byte; Folding.ExpandPairs compares them as a
// folding table does.
func ExpandPairs(paths []string, rules []PairRule) []string {
	return ExactCase.ExpandPairs(paths, rules)
}

// ExpandPairs is gate.ExpandPairs with names compared under f: a rule
// matches a path in every spelling f takes for one ("X.GO" matches
// "{name}.go" where case folds), the pair is spelt as the rule writes it
// around the name matched ("X_test.go"), and a pair that is one of paths
// under f is not added again. Where the pair file exists spelt otherwise
// ("x_TEST.go"), the lease covers it all the same, since the table folds
// as f does; a caller that may look at the disk can respell the pair as
// the file is named there.
func (f Folding) ExpandPairs(paths []string, rules []PairRule) []string {
	out := append([]string(nil), paths...)
	var seen map[string]bool // made once a pair is found
	for _, p := range paths {
		if IsGlob(p) {
			continue
		}
		for _, r := range rules {
			q, ok := r.pair(p, f)
			if !ok {
				continue
			}
			if seen == nil {
				seen = make(map[string]bool, len(paths)+1)
				for _, p := range paths {
					seen[f.Key(p)] = true
				}
			}
			if k := f.Key(q); !seen[k] {
				seen[k] = true
				out = append(out, q)
			}
		}
	}
	return out
}

// pair returns the path p pairs with under r, names compared under f.
func (r PairRule) pair(p string, f Folding) (string, bool) {
	from, to := r.from, r.to
	if f.foldsCase() {
		from, to = r.foldFrom, r.foldTo
	}
	p = f.form(p)
	if mayEnd(p, r.toEnd, f) {
		if m := to.FindStringSubmatch(p); m != nil {
			return r.fill(r.From, to, m), true
		}
	}
	if mayEnd(p, r.fromEnd, f) {
		if m := from.FindStringSubmatch(p); m != nil {
			return r.fill(r.To, from, m), true
		}
	}
	return "", false
}

// mayEnd reports whether p can end with a rule side's literal end under
// f, so that most paths are refused without running a regexp. Where case
// folds, an ASCII tail decides by its letters folded; any other tail is
// left to the regexp, since a letter may fold to one spelt with another
// number of bytes (the Kelvin sign to "k").
func mayEnd(p, end string, f Folding) bool {
	if !f.foldsCase() {
		return strings.HasSuffix(p, end)
	}
	switch {
	case !isASCII(end):
		return true
	case len(p) < len(end):
		return false // each letter of p that folds to one of end's takes a byte at least
	}
	tail := p[len(p)-len(end):]
	return !isASCII(tail) || strings.EqualFold(tail, end)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
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
