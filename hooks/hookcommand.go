package hooks

import (
	"fmt"
	"regexp"
	"strings"
)

// An agent that takes its hook as a shell line runs that line through a
// shell of its own choosing, and on Windows each agent chooses another:
// Codex hands it to cmd.exe (%COMSPEC% /C), Gemini CLI to PowerShell
// (pwsh.exe, else powershell.exe, with -Command), and Cursor to PowerShell
// too. Claude Code needs none: install writes its handler in exec form
// (command and args), which no shell reads. The lines below are what each
// of those shells reads back as the binary's path and `hook AGENT`; the
// POSIX line is in shellquote.go.

// windowsShellOf is the shell that runs agent a's hook line on Windows.
var windowsShellOf = map[Agent]windowsShell{Codex: cmdShell, Gemini: powerShell, Cursor: powerShell}

type windowsShell int

const (
	cmdShell windowsShell = iota
	powerShell
)

// windowsHookCommand is the line that runs `exe hook AGENT` in the shell
// agent a uses on Windows.
func windowsHookCommand(a Agent, exe string) (string, error) {
	if windowsShellOf[a] == powerShell {
		return powerShellCommand(exe, "hook", string(a)), nil
	}
	return cmdCommand(exe, "hook", string(a))
}

// cmdSafe is a path cmd.exe reads as one literal word without quotes.
var cmdSafe = regexp.MustCompile(`^[A-Za-z0-9_.:\\/-]+$`)

// cmdCommand is a cmd.exe line running exe with args (plain words). A
// path of letters, digits and separators is written bare, which reads the
// same however the agent quotes the line it hands to cmd /C. Any other
// path is put in double quotes, inside which cmd.exe takes spaces,
// backslashes, & | < > ^ and ( ) literally; only %NAME% is still expanded
// there, and a path holding % is refused rather than run as another one.
func cmdCommand(exe string, args ...string) (string, error) {
	if strings.ContainsAny(exe, `%"`) || strings.ContainsAny(exe, "\r\n") {
		return "", fmt.Errorf("install: the path %s holds %%, \" or a line break, which cmd.exe (the shell Codex runs hooks with on Windows) cannot take literally; install leasegate under a path without them", exe)
	}
	if cmdSafe.MatchString(exe) {
		return exe + " " + strings.Join(args, " "), nil
	}
	return `"` + exe + `" ` + strings.Join(args, " "), nil
}

// powerShellCommand is a PowerShell line running exe with args (plain
// words): the call operator & and the path in single quotes, inside which
// PowerShell takes everything literally but a single quote, written twice.
// PowerShell counts the typographic single quotes (U+2018 to U+201B) as
// quotes too, so they are doubled the same way.
func powerShellCommand(exe string, args ...string) string {
	var b strings.Builder
	b.WriteString("& '")
	for _, r := range exe {
		if isPowerShellQuote(r) {
			b.WriteRune(r)
		}
		b.WriteRune(r)
	}
	b.WriteString("'")
	for _, a := range args {
		b.WriteString(" " + a)
	}
	return b.String()
}

func isPowerShellQuote(r rune) bool { return r == '\'' || (r >= '\u2018' && r <= '\u201b') }

// windowsCommandWords splits a hook line written by windowsHookCommand (or
// by hand in either shell's plain form) into words: a leading PowerShell
// call operator is dropped, a single-quoted word has its doubled quotes
// undone, a double-quoted one is taken as is, and backslashes are path
// separators, never escapes.
func windowsCommandWords(line string) []string {
	rest := strings.TrimSpace(line)
	if strings.HasPrefix(rest, "& ") {
		rest = strings.TrimSpace(rest[2:])
	}
	var words []string
	for rest != "" {
		var w string
		switch {
		case strings.HasPrefix(rest, `"`):
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return nil
			}
			w, rest = rest[1:1+end], rest[2+end:]
		case isPowerShellQuote(firstRune(rest)):
			var ok bool
			if w, rest, ok = powerShellQuoted(rest); !ok {
				return nil
			}
		default:
			end := strings.IndexAny(rest, " \t")
			if end < 0 {
				end = len(rest)
			}
			w, rest = rest[:end], rest[end:]
		}
		words = append(words, w)
		rest = strings.TrimLeft(rest, " \t")
	}
	return words
}

// powerShellQuoted reads the single-quoted word at the start of s: the
// word, what follows it, and whether it was closed.
func powerShellQuoted(s string) (string, string, bool) {
	var b strings.Builder
	rs := []rune(s)
	for i := 1; i < len(rs); i++ {
		if !isPowerShellQuote(rs[i]) {
			b.WriteRune(rs[i])
			continue
		}
		if i+1 < len(rs) && isPowerShellQuote(rs[i+1]) {
			b.WriteRune(rs[i])
			i++
			continue
		}
		return b.String(), string(rs[i+1:]), true
	}
	return "", "", false
}

func firstRune(s string) rune {
	for _, r := range s {
		return r
	}
	return 0
}
