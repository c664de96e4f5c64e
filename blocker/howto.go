package blocker

import (
	"regexp"
	"strings"

	"github.com/leasegate/leasegate/gate"
)

// howToResolve lists the commands that end blocker id, held up by the
// holder's lease, in the order an operator should consider them. Each is a
// shell line whose comment says when to use it, so it can be pasted as is.
func howToResolve(id string, h HolderInfo) []string {
	qid := shellQuote(id)
	return []string{
		"leasegate resolve " + qid + " --retry  # after " + h.LetsGo("the holder"),
		"leasegate evict " + shellQuote(string(h.LeaseID)) + " --reason " +
			shellQuote("holder gone or stuck (blocker "+id+")") + "  # if the holder is gone or stuck; then retry",
		"leasegate resolve " + qid + " --deny  # fail the write with EBUSY and let the worker continue",
		"leasegate resolve " + qid + " --abort  # end the worker",
	}
}

// LetsGo says what the holder, named who, does that frees the file: an
// auto lease ends when its holder commits or releases the file, a
// check-out only by release or check-in.
func (h HolderInfo) LetsGo(who string) string {
	if h.Kind == gate.KindCheckout {
		return who + " releases or checks in its check-out (a commit does not end it)"
	}
	return who + " commits or releases the file"
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`)

// shellQuote returns s as one POSIX shell word.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
