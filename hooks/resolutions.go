package hooks

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// toldPrefix names the files that remember which resolutions a session
// was told.
const toldPrefix = "told-"

// resolutions tells a session, once each, how an operator resolved the
// blockers its writes ran into, with the operator's note: the hook that
// was blocked answered long before, so the session's next call carries it.
// A session that remembers nothing (under a sidecar, which prints it on the
// worker's terminal) is told nothing here.
func (h *Handler) resolutions(ctx context.Context, cl Coordinator, sess session, name string) string {
	if sess.dir == "" {
		return ""
	}
	reps, err := cl.Blockers(ctx, true)
	if err != nil {
		h.log.Debug("cannot list blockers", "error", err)
		return ""
	}
	var msgs []string
	for _, r := range reps {
		if r.Requester.Name != name || r.Resolution == nil || sess.told(r.ID) {
			continue
		}
		msgs = append(msgs, resolutionMessage(r))
		if err := sess.markTold(r.ID); err != nil {
			h.log.Debug("cannot remember a told resolution", "blocker", r.ID, "error", err)
		}
	}
	return strings.Join(msgs, "\n")
}

func resolutionMessage(r blocker.Report) string {
	res := r.Resolution
	msg := fmt.Sprintf("leasegate: an operator resolved blocker %s on %s: %s", r.ID, gate.ShownPath(r.Path), res.Action)
	switch res.Action {
	case blocker.ActionDeny:
		msg += " (the write was refused; go on without it)"
	case blocker.ActionRetry:
		msg += " (the file is yours now if the write is made again)"
	}
	if res.Note != "" {
		msg += fmt.Sprintf(". The operator's note: %q", res.Note)
	}
	return msg
}

// withResolutions adds what the session has not been told yet to d: as
// context to an allowed call, after the reason of a refused one.
func withResolutions(d Decision, told string) Decision {
	switch {
	case told == "":
	case d.Verdict == Allow && d.Context == "":
		d.Context = told
	case d.Verdict == Allow:
		d.Context += "\n" + told
	default:
		d.Reason += "\n" + told
	}
	return d
}

func (s session) told(id string) bool {
	_, err := os.Stat(filepath.Join(s.dir, toldPrefix+url.PathEscape(id)))
	return err == nil
}

func (s session) markTold(id string) error {
	return s.writeFile(toldPrefix+url.PathEscape(id), nil)
}
