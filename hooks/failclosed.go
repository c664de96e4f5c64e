package hooks

import (
	"strings"

	"github.com/leasegate/leasegate/internal/envname"
)

// An agent that runs a hook line through a shell allows the call when the
// line fails in any way but its agreed "block" (Codex and Gemini CLI: exit
// 2; Codex also wants something on stderr): a leasegate that was moved or
// deleted (exit 127), one killed by a signal, or one that ended on an
// error of its own would let the write through ungated. So the POSIX line
// install writes does not run leasegate alone: /bin/sh runs it and turns
// every end but leasegate's own answers (0, and 2 with its reason) into a
// block, with a reason the user can act on. /bin/sh is named, not the
// agent's shell: Codex runs the line with the user's $SHELL, which may be
// fish or csh, so the line is a call of /bin/sh that every one of those
// shells reads alike, its program in single quotes and the paths as
// arguments after it.

// failClosedMarker is the name the fail-closed line gives its /bin/sh
// ($0, which sh prefixes its own messages with), and by which it is known
// as leasegate's when read back.
const failClosedMarker = "leasegate-hook"

// failClosedScript is the /bin/sh program of the fail-closed line: $1 is
// leasegate's binary, $2 the agent. It names itself ($$) to the hook in
// HookParent, since an agent that gives up the call kills the process it
// started, the shell, and the hook must end its wait then (see
// EndWithCaller). It holds no single quote, backslash,
// backquote or "!", so that every shell reads it alike in single quotes,
// and no $GEMINI_* or $CLAUDE_* name, which Gemini CLI replaces in a hook
// line before running it.
const failClosedScript = envname.HookParent + `=$$ "$1" hook "$2"; s=$?; case $s in 0|2) exit $s;; esac; ` +
	`fix="leasegate doctor says more"; why="$1 ended with status $s before it answered"; ` +
	`case $s in 126) why="$1 cannot be executed";; 127) why="$1: not found";; esac; ` +
	`if [ $s -eq 126 ] || [ $s -eq 127 ]; then fix="run leasegate install $2 again with the leasegate you use now"; fi; ` +
	`if [ $s -gt 128 ]; then why="$1 was killed by signal $((s - 128)) before it answered"; fi; ` +
	`echo "leasegate hook could not run: $why; the call is blocked, as every call will be until it runs; $fix" >&2; exit 2`

// failClosedLine is the POSIX shell line that runs `exe hook AGENT` for
// agent a and blocks the call whenever that ends without an answer.
func failClosedLine(a Agent, exe string) string {
	return "/bin/sh -c " + anyShellQuote(failClosedScript) + " " + failClosedMarker + " " + anyShellQuote(exe) + " " + string(a)
}

// failClosedWords reads words of a POSIX hook line back as the program
// and arguments of the call it wraps, when it is a fail-closed line (of
// this or another version's program), and reports whether it was.
func failClosedWords(words []string) (string, []string, bool) {
	if len(words) != 6 || words[0] != "/bin/sh" || words[1] != "-c" || words[3] != failClosedMarker {
		return "", nil, false
	}
	return words[4], []string{"hook", words[5]}, true
}

// isFailClosedLine reports whether line is the fail-closed line this
// version writes (whichever binary it names).
func isFailClosedLine(line string) bool {
	words := shellWords(line)
	_, _, ok := failClosedWords(words)
	return ok && words[2] == failClosedScript
}

// anyShellQuote returns s as one word that POSIX shells, fish and csh all
// read back as s: single-quoted, with each single quote and backslash
// outside the quotes behind a backslash (fish reads \' and \\ as escapes
// even inside single quotes, where POSIX shells take them literally).
func anyShellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	var b strings.Builder
	open := false
	for _, r := range s {
		if r == '\'' || r == '\\' {
			if open {
				b.WriteByte('\'')
				open = false
			}
			b.WriteByte('\\')
			b.WriteRune(r)
			continue
		}
		if !open {
			b.WriteByte('\'')
			open = true
		}
		b.WriteRune(r)
	}
	if open {
		b.WriteByte('\'')
	}
	return b.String()
}
