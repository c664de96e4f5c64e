package hooks

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/leasegate/leasegate/workspace"
)

// Asking git whether a path is ignored starts two git processes per hook
// call (ls-files, then check-ignore), the largest cost of gating a write.
// Most written files are ones no ignore pattern could match, and that can
// be told without git: every run of literal characters in a pattern
// (between wildcards, brackets, escapes and slashes) appears verbatim, up
// to case, in whatever path the pattern matches, and a path git matches
// against a pattern is a part of the workspace-relative path. So a path
// that misses a literal run of every ignore pattern git reads is not
// ignored, and is gated whether git tracks it or not. Where a pattern may
// match, or a source of patterns cannot be read for sure, git decides.

// ignorePatterns are the literal runs of the ignore patterns that apply to
// every path of a workspace: info/exclude and core.excludesFile. The
// .gitignore files are read per path.
type ignorePatterns struct {
	root  string
	runs  [][]string
	perAt map[string][][]string // runs of the .gitignore in a directory, by workspace-relative dir
}

// loadIgnorePatterns reads the workspace-wide ignore patterns of ws, or
// returns false when only git can tell what they are.
func loadIgnorePatterns(ws *workspace.Workspace) (*ignorePatterns, bool) {
	excludes, ok := ws.ExcludesFile()
	if !ok {
		return nil, false
	}
	p := &ignorePatterns{root: ws.Root, perAt: map[string][][]string{}}
	files := []string{excludes, filepath.Join(ws.CommonDir, "info", "exclude")}
	if ws.GitDir != ws.CommonDir {
		files = append(files, filepath.Join(ws.GitDir, "info", "exclude"))
	}
	for _, f := range files {
		runs, ok := readPatternRuns(f)
		if !ok {
			return nil, false
		}
		p.runs = append(p.runs, runs...)
	}
	return p, true
}

// mayBeIgnored reports whether an ignore pattern might match rel, a clean
// workspace-relative path, or one of its directories: true unless it
// surely does not. A directory on the way that holds .git (a nested
// repository) is left to git.
func (p *ignorePatterns) mayBeIgnored(rel string) bool {
	folded := foldCase(rel)
	if anyMatches(p.runs, folded) {
		return true
	}
	dir := "."
	for {
		runs, ok := p.dirRuns(dir)
		if !ok || anyMatches(runs, folded) {
			return true
		}
		i := strings.IndexByte(rel[len(dirPrefix(dir)):], '/')
		if i < 0 {
			return false
		}
		dir = rel[:len(dirPrefix(dir))+i]
		if _, err := os.Lstat(filepath.Join(p.root, dir, ".git")); err == nil {
			return true
		}
	}
}

func dirPrefix(dir string) string {
	if dir == "." {
		return ""
	}
	return dir + "/"
}

// dirRuns returns the runs of the .gitignore in dir.
func (p *ignorePatterns) dirRuns(dir string) ([][]string, bool) {
	if runs, ok := p.perAt[dir]; ok {
		return runs, true
	}
	runs, ok := readPatternRuns(filepath.Join(p.root, dir, ".gitignore"))
	if ok {
		p.perAt[dir] = runs
	}
	return runs, ok
}

// anyMatches reports whether every run of some pattern occurs in path.
func anyMatches(patterns [][]string, path string) bool {
	for _, runs := range patterns {
		all := true
		for _, r := range runs {
			if !strings.Contains(path, r) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// readPatternRuns reads an ignore file: a missing one holds no pattern.
func readPatternRuns(path string) ([][]string, bool) {
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return nil, true
	case err != nil:
		return nil, false
	}
	var out [][]string
	for _, line := range bytes.Split(data, []byte("\n")) {
		pat := string(bytes.TrimRight(line, "\r"))
		if pat == "" || pat[0] == '#' || pat[0] == '!' {
			continue // a negation only ever un-ignores
		}
		out = append(out, literalRuns(pat))
	}
	return out, true
}

// literalRuns splits an ignore pattern into the runs of characters it
// matches literally, case-folded. Wildcards, bracket expressions, escapes
// (with the character they escape), slashes and spaces end a run: fewer
// or shorter runs only make mayBeIgnored answer true more often.
func literalRuns(pat string) []string {
	var runs []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			runs = append(runs, foldCase(cur.String()))
			cur.Reset()
		}
	}
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; c {
		case '*', '?', '/', ' ', '\t':
			flush()
		case '\\':
			flush()
			i++
		case '[':
			flush()
			i = bracketEnd(pat, i)
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	return runs
}

// bracketEnd returns the index of the "]" closing the bracket expression
// opened at pat[open], or the end of pat.
func bracketEnd(pat string, open int) int {
	i := open + 1
	if i < len(pat) && (pat[i] == '!' || pat[i] == '^') {
		i++
	}
	if i < len(pat) && pat[i] == ']' {
		i++
	}
	for ; i < len(pat); i++ {
		switch pat[i] {
		case '\\':
			i++
		case ']':
			return i
		case '[':
			if i+1 < len(pat) && pat[i+1] == ':' {
				if end := strings.Index(pat[i+2:], ":]"); end >= 0 {
					i += end + 3
				}
			}
		}
	}
	return len(pat)
}

// foldCase lowercases ASCII letters, as git's core.ignoreCase does.
func foldCase(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
