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
