package hooks

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// waitingOn tells a session, once each and only when the user submits a
// prompt (between turns, never in the middle of the agent's work), which
// writes of other owners wait on its leases: a write waiting for its retry,
// or halted on a blocker. Committing or releasing the file lets it go on.
func (h *Handler) waitingOn(ctx context.Context, cl Coordinator, sess session, name string) string {
	if sess.dir == "" {
		return ""
	}
	st, err := cl.Status(ctx)
	if err != nil {
		h.log.Debug("cannot read status", "error", err)
		return ""
	}
	var msgs []string
	for _, c := range st.Contentions {
		if c.Holder.Owner.Name != name || sess.told("c-"+c.ID) {
			continue
		}
		msgs = append(msgs, fmt.Sprintf("leasegate: %s waits to write %s, which this session holds (lease %s); its one retry is at %s. Commit or release the file when you are done with it.",
			c.Requester, strings.Join(c.Paths, ", "), c.Holder.ID, c.RetryAt.UTC().Format(time.RFC3339)))
		h.markTold(sess, "c-"+c.ID)
	}
	for _, b := range st.Blockers {
		if b.Holder.Owner.Name != name || sess.told("b-"+b.ID) {
			continue
		}
		msgs = append(msgs, fmt.Sprintf("leasegate: %s is halted on blocker %s waiting to write %s, which this session holds (lease %s). Commit or release the file; an operator then lets it go on.",
			b.Requester.Name, b.ID, b.Path, b.Holder.LeaseID))
		h.markTold(sess, "b-"+b.ID)
	}
	return strings.Join(msgs, "\n")
}

func (h *Handler) markTold(sess session, key string) {
	if err := sess.markTold(key); err != nil {
		h.log.Debug("cannot remember a told notice", "key", url.PathEscape(key), "error", err)
	}
}
