package hooks

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

// The texts of denials and refusals. Each says what happened, names what
// the model or the operator needs (file, holder, blocker id), and what to
// do next: the model must not route around a denial through the shell.

// unavailable is the denial when the coordinator cannot be reached: the
// session halts, since every write would be refused the same way.
func unavailable(ws *workspace.Workspace, paths []string, err error) Decision {
	return halt(
		fmt.Sprintf("leasegate: the lease coordinator of %s cannot be reached (%v), so the write to %s is refused: writes fail closed while it is down. Do not write the file by other means; tell the user.",
			ws.Root, err, gate.ShownPaths(paths, ", ")),
		fmt.Sprintf("leasegate: the coordinator of %s cannot be reached: %v. Check it with `leasegate status --workspace %s`; agent writes are refused until it answers.", ws.Root, err, ws.Root))
}

// notConnected is the denial when no coordinator could be used for the
// write: none answers, or the one that does serves another ledger than
// the hook was told to use.
func notConnected(ws *workspace.Workspace, paths []string, err error) Decision {
	if !errors.Is(err, leasegate.ErrLedgerMismatch) {
		return unavailable(ws, paths, err)
	}
	return halt(
		fmt.Sprintf("leasegate: the write to %s is refused because the lease coordinator of %s serves another lease table than this session was told to use (%v). Do not write the file by other means; tell the user.",
			gate.ShownPaths(paths, ", "), ws.Root, err),
		fmt.Sprintf("leasegate: %v. Agent writes are refused until the coordinator serves the ledger named.", err))
}

// blocked is the denial of a write whose one retry found the file still
// held: the model learns what is held and must stop; the operator learns
// how to resolve the blocker. Asked again after the holder let go (it
// released, committed, or was reclaimed or evicted), the blocker is still
// open and the session still halted until an operator resolves it, but
// the denial no longer names the holder as the one holding the file.
func blocked(rep blocker.Report) Decision {
	holder, shown := rep.Holder.Owner.Name, gate.ShownPath(rep.Path)
	if n := rep.HolderNow; n != nil && !n.Holds {
		return halt(
			fmt.Sprintf("leasegate: blocker %s is open and this session is halted: the write to %s was retried once after %s while %s held it (lease %s). %s no longer holds it (%s), but the session stays halted until an operator resolves the blocker (`leasegate resolve %s --retry` grants the write once the file is free). Do not write %s by any other means (shell redirection, sed, mv, git checkout). Stop and tell the user that an operator must resolve blocker %s.",
				rep.ID, shown, rep.RetryInterval, holder, rep.Holder.LeaseID, holder, n.Phrase(), rep.ID, shown, rep.ID),
			blockerStop(rep))
	}
	return halt(
		fmt.Sprintf("leasegate: %s is leased by %s (lease %s, held for %s). The write was retried once after %s and the file is still held, so blocker %s is open and this session is halted. Do not write %s by any other means (shell redirection, sed, mv, git checkout). Stop and tell the user that an operator must resolve blocker %s.",
			shown, holder, rep.Holder.LeaseID, rep.Holder.HeldFor.Round(time.Second), rep.RetryInterval, rep.ID, shown, rep.ID),
		blockerStop(rep))
}

// blockerStop tells the operator what holds a session and how to resolve it.
func blockerStop(rep blocker.Report) string {
	holder, shown := rep.Holder.Owner.Name, gate.ShownPath(rep.Path)
	if n := rep.HolderNow; n != nil && !n.Holds {
		return fmt.Sprintf("leasegate: blocker %s: %s no longer holds %s (%s), but this session stays halted until the blocker is resolved. Resolve it with `leasegate resolve %s --retry` (first: it grants the write once the file is free), `--deny` (refuse the write; the session goes on) or `--abort`; details: `leasegate blockers %s`.",
			rep.ID, holder, shown, n.Phrase(), rep.ID, rep.ID)
	}
	return fmt.Sprintf("leasegate: blocker %s: %s is leased by %s, so this session is halted. Resolve it with `leasegate resolve %s --retry` (after %s), `--deny` (refuse the write; the session goes on) or `--abort`; details: `leasegate blockers %s`.",
		rep.ID, shown, holder, rep.ID, rep.Holder.LetsGo(holder), rep.ID)
}

// heldBy says who keeps r's file from the session as r was last read: its
// holder, or that the holder no longer holds it and a retry grants it.
func heldBy(r blocker.Report) string {
	shown, holder := gate.ShownPath(r.Path), r.Holder.Owner.Name
	if n := r.HolderNow; n != nil && !n.Holds {
		return fmt.Sprintf("%s was leased by %s, who no longer holds it (%s): `leasegate resolve %s --retry` grants the write", shown, holder, n.Phrase(), r.ID)
	}
	return fmt.Sprintf("%s is leased by %s", shown, holder)
}

// refusal tells the user which blockers halt the session and how to go on.
func refusal(reps []blocker.Report, what string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "leasegate: this session is halted by %d open blocker(s), so %s:", len(reps), what)
	for _, r := range reps {
		fmt.Fprintf(&b, " blocker %s (%s);", r.ID, heldBy(r))
	}
	fmt.Fprintf(&b, " resolve with `leasegate resolve ID --retry|--deny|--abort` (`leasegate blockers` shows them), then go on.")
	return b.String()
}
