package blocker

import (
	"regexp"
	"strings"

	"github.com/leasegate/leasegate/gate"
)

// howToResolve lists the commands that end blocker id, held up by lease
// (of kind),
// in the order an operator should consider them. Each is a shell line
// whose comment says when to use it, so it can be pasted as is.
func howToResolve(id string, lease gate.LeaseID, kind gate.Kind) []string {
	qid := shellQuote(id)
	after := "after the holder commits or releases the file"
	if kind == gate.KindCheckout {
		after = "after the holder releases or checks in its check-out (a commit does not end it)"
	}
	return []string{
		"leasegate resolve " + qid + " --retry  # " + after,
		"leasegate evict " + shellQuote(string(lease)) + " --reason " +
			shellQuote("holder gone or stuck (blocker "+id+")") + "  # if the holder is gone or stuck; then retry",
		"leasegate resolve " + qid + " --deny  # fail the write with EBUSY and let the worker continue",
		"leasegate resolve " + qid + " --abort  # end the worker",
	}
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`)

// shellQuote returns s as one POSIX shell word.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
