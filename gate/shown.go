package gate

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ShownPath is p as text meant for a person shows it: p itself when it
// is valid UTF-8 and every character is printable, else quoted as a Go
// string. A file name is a worker's choice; one holding a newline or an
// escape sequence would otherwise forge lines of a message or drive the
// operator's terminal.
func ShownPath(p string) string {
	if !utf8.ValidString(p) || strings.IndexFunc(p, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(p)
	}
	return p
}

// ShownPaths is paths as ShownPath shows them, joined by sep.
func ShownPaths(paths []string, sep string) string {
	shown := make([]string, len(paths))
	for i, p := range paths {
		shown[i] = ShownPath(p)
	}
	return strings.Join(shown, sep)
}
