//go:build !windows

package hooks

import "strings"

// hooksOnLine is the first line given to a shell command (Gemini CLI runs
// it with bash here) that has every git in it run its hooks from dir: an
// entry added to GIT_CONFIG_PARAMETERS, in git's own quoting, after the
// entries already there. A path that the double quotes or git's single
// quotes would read otherwise is quoted word by word, which reads worse.
func hooksOnLine(dir string) string {
	const keep = `export GIT_CONFIG_PARAMETERS="${GIT_CONFIG_PARAMETERS:+$GIT_CONFIG_PARAMETERS }`
	const why = " # leasegate: git runs leasegate's commit guard"
	entry := "core.hookspath=" + dir
	if !strings.ContainsAny(dir, "'\"$`\\!\n") {
		return keep + "'" + entry + "'\"" + why
	}
	return keep + `"` + shellQuote("'"+strings.ReplaceAll(entry, "'", `'\''`)+"'") + why
}

// hooksOnGit returns command with `-c core.hooksPath=dir` after the git
// that heads each of its simple commands naming commit, merge or pull, and
// true; false where one of them is headed by anything else (`sudo git`,
// `if git`, `echo "... commit"`) or the command holds what the scan below
// does not follow (a here-document, backquotes). Gemini CLI matches an
// allow rule's prefix against the start of the whole command and of each
// simple command in it, so a user's rule for `git` allows this form as it
// allows the command as written, where the line that exports
// GIT_CONFIG_PARAMETERS (hooksOnLine) needs a rule for `export` as well.
// A rule for `git commit` allows neither: git takes configuration only
// before the subcommand's name, and the rule's prefix is what sits there.
func hooksOnGit(dir, command string) (string, bool) {
	if strings.Contains(command, "<<") || strings.ContainsRune(command, '`') {
		return "", false
	}
	var at []int // where a -c goes: after the git heading a command
	start, quote := 0, byte(0)
	segment := func(end int) bool {
		seg := command[start:end]
		if !mayCommit.MatchString(seg) {
			return true
		}
		word := strings.TrimLeft(seg, " \t")
		if len(word) < 4 || !strings.HasPrefix(word, "git") || (word[3] != ' ' && word[3] != '\t') {
			return false
		}
		at = append(at, end-len(word)+3)
		return true
	}
	for i := 0; i < len(command); i++ {
		c := command[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
		case c == '\\':
			i++
		case quote == '"':
			if c == '"' {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case strings.IndexByte(";&|\n()", c) >= 0:
			if !segment(i) {
				return "", false
			}
			start = i + 1
		}
	}
	if quote != 0 || !segment(len(command)) {
		return "", false
	}
	opt := " -c " + shellQuote("core.hooksPath="+dir)
	var b strings.Builder
	last := 0
	for _, p := range at {
		b.WriteString(command[last:p])
		b.WriteString(opt)
		last = p
	}
	b.WriteString(command[last:])
	return b.String(), true
}
