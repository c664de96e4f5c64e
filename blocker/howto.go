package blocker

import (
	"regexp"
	"strings"

	"github.com/leasegate/leasegate/gate"
)

// steps lists the commands that end the report now, in the order an
// operator should consider them. Each is a shell line whose comment says
// when to use it, so it can be pasted as is. A resolved report has none;
// a holder whose lease has ended is not evicted, and the retry comes
// first, as it grants the write once the file is free.
func (r Report) steps() []string {
	if r.Status != StatusOpen {
		return []string{}
	}
	qid := shellQuote(r.ID)
	deny := "leasegate resolve " + qid + " --deny  # fail the write with EBUSY and let the worker continue"
	abort := "leasegate resolve " + qid + " --abort  # end the worker"
	if n := r.HolderNow; n != nil && !n.Holds {
		retry := "leasegate resolve " + qid + " --retry  # first: the holder no longer holds the file (" + n.Phrase() + ")"
		if !r.FreeSince.IsZero() {
			retry += "; the file is free, so this grants the write"
		} else {
			retry += "; this decides again (another lease may hold the file now: see leasegate status)"
		}
		return []string{retry, deny, abort}
	}
	return []string{
		"leasegate resolve " + qid + " --retry  # after " + r.Holder.LetsGo("the holder"),
		"leasegate evict " + shellQuote(string(r.Holder.LeaseID)) + " --reason " +
			shellQuote("holder gone or stuck (blocker "+r.ID+")") + "  # if the holder is gone or stuck; then retry",
		deny, abort,
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
