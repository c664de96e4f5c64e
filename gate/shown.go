package gate

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ShownPath is p as text meant for a person shows it: p itself when it
// is valid UTF-8, every character is printable, it neither starts nor
// ends with a space and it does not start with a double quote; else
// quoted as a Go string. A file name is a worker's choice; one holding a
// newline or an escape sequence would otherwise forge lines of a message
// or drive the operator's terminal. The rest keeps two names from
// looking alike: a name that starts with a quote would pass for another
// name quoted (`"a\nb"` for a and b on two lines), and a space at either
// end is invisible.
func ShownPath(p string) string {
	if needsQuote(p) {
		return strconv.Quote(p)
	}
	return p
}

func needsQuote(p string) bool {
	return !utf8.ValidString(p) || strings.IndexFunc(p, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 ||
		strings.HasPrefix(p, `"`) || strings.HasPrefix(p, " ") || strings.HasSuffix(p, " ")
}

// ShownPaths is paths as ShownPath shows them, joined by sep; a path that
// holds sep is quoted too, so that one name is never shown as two.
func ShownPaths(paths []string, sep string) string {
	shown := make([]string, len(paths))
	for i, p := range paths {
		shown[i] = ShownPath(p)
		if sep != "" && strings.Contains(shown[i], sep) && shown[i] == p {
			shown[i] = strconv.Quote(p)
		}
	}
	return strings.Join(shown, sep)
}

// MaxShownPaths is how many of one lease's or request's paths text for a
// person lists. A narrowed new directory's lease (EventNarrowed) holds up
// to MaxPaths of them, and a line naming each would bury everything
// after it; a few name it well enough, and the JSON forms give them all.
const MaxShownPaths = 5

// ShownFewPaths is ShownPaths of the first MaxShownPaths of paths, and,
// when there are more, "and N more" after them, joined by sep too.
func ShownFewPaths(paths []string, sep string) string {
	if len(paths) <= MaxShownPaths {
		return ShownPaths(paths, sep)
	}
	return ShownPaths(paths[:MaxShownPaths], sep) + sep + "and " + strconv.Itoa(len(paths)-MaxShownPaths) + " more"
}
