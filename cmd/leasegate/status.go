package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

func cmdStatus(ctx context.Context, args []string) error {
	var f common
	var all bool
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	f.register(fs, false)
	startsNothing(fs)
	fs.BoolVar(&all, "all", false, fmt.Sprintf("list every lease (without it, at most %d of each owner)", statusLeasesPerOwner))
	if err := parseNone("status", fs, args); err != nil {
		return err
	}
	cl, ws, err := f.reader(ctx)
	if err != nil || cl == nil {
		return err
	}
	s, err := cl.Status(ctx)
	if err != nil {
		return err
	}
	h, err := cl.Health(ctx)
	if err != nil {
		return err
	}
	rule := describeRule(ws)
	if f.jsonOut {
		return printJSON(statusJSON(s, h, ws, rule))
	}
	printStatus(os.Stdout, s, h, coordinatorPID(ctx, ws, h), ws, rule, all)
	return nil
}

func describeRule(ws *workspace.Workspace) string {
	r, err := workspace.NewRule(ws, nil)
	if err != nil {
		return "gating rule unavailable: " + err.Error()
	}
	defer r.Close()
	return r.Describe()
}

// statusLeasesPerOwner is how many leases of one owner status lists
// without --all; a worker that cloned or generated thousands of files
// would otherwise bury everyone else's.
const statusLeasesPerOwner = 10

// statusNameWidth is the longest lease name status keeps in its table's
// first column; a longer one is put on a line of its own above its row.
const statusNameWidth = 72

// printStatus writes status as text: leases grouped by owner, oldest
// first, at most statusLeasesPerOwner of each unless all. seenPID is the
// coordinator's pid as this process sees it (0: as it reports itself).
func printStatus(w io.Writer, s leasegate.Status, h api.Health, seenPID int, ws *workspace.Workspace, rule string, all bool) {
	fmt.Fprintf(w, "workspace %s\n", ws.Root)
	printCoordinator(w, s, h, seenPID, ws)
	if !s.PidNS.Host {
		fmt.Fprintf(w, "pid namespace %s: %s\n", s.PidNS.ID, s.PidNS.Note)
	}
	if s.LedgerWarning != "" {
		fmt.Fprintf(w, "WARNING: %s\n", s.LedgerWarning)
	}
	if s.FilesWarning != "" {
		fmt.Fprintf(w, "WARNING: %s\n", s.FilesWarning)
	}
	if s.WentBack != nil {
		fmt.Fprintf(w, "WARNING: %s\n", s.WentBack.Summary())
	}
	fmt.Fprintf(w, "gating rule:\n  %s\n\n", strings.ReplaceAll(strings.TrimSpace(rule), "\n", "\n  "))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "OWNERS (%d)\tLIVENESS\tPID\tLEASES\tLAST ACTIVITY\tRETRY AFTER\tSTOP-IDLE\n", len(s.Owners))
	for _, o := range s.Owners {
		st := string(o.Liveness.Status)
		if o.HaltedBy != "" {
			st = "halted (blocker " + o.HaltedBy + ")"
		}
		if !o.StoppedAt.IsZero() {
			st += " (stop-idle since " + ago(s.Now, o.StoppedAt) + ", " + o.StoppedBy + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", o.Name, st, pidString(o), o.Leases, agoText(s.Now, o.LastActivity),
			windowString(o.Windows.Retry, 0), windowString(o.Windows.Idle, 0))
	}
	fmt.Fprintf(tw, "\nLEASES (%d)\tOWNER\tKIND\tTOKEN\tHELD FOR\tEXPIRES\n", len(s.Leases))
	leases := slices.Clone(s.Leases)
	slices.SortStableFunc(leases, func(a, b gate.Lease) int {
		return cmp.Or(cmp.Compare(a.Owner.Name, b.Owner.Name), cmp.Compare(a.FencingToken, b.FencingToken))
	})
	for i := 0; i < len(leases); {
		owner := leases[i].Owner.Name
		n := 0
		for ; i < len(leases) && leases[i].Owner.Name == owner; i++ {
			if n++; n > statusLeasesPerOwner && !all {
				continue
			}
			l := leases[i]
			exp := "-"
			if !l.ExpiresAt.IsZero() {
				exp = l.ExpiresAt.UTC().Format(time.RFC3339)
			}
			scope := leaseString(l)
			if utf8.RuneCountInString(scope) > statusNameWidth {
				// On a line of its own a long name widens no column: a
				// path of thousands of bytes would pad every row to it.
				fmt.Fprintf(tw, "%s\n", scope)
				scope = "  (the name above)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", scope, owner, l.Kind, tokenText(l.FencingToken), ago(s.Now, l.AcquiredAt), exp)
		}
		if more := n - statusLeasesPerOwner; more > 0 && !all {
			fmt.Fprintf(tw, "... %d more\t%s\t\t\t\t(status --all lists them)\n", more, owner)
		}
	}
	tw.Flush()
	if len(s.Contentions) > 0 {
		fmt.Fprintf(w, "\nCONTENTION (%d)\n", len(s.Contentions))
		for _, c := range s.Contentions {
			fmt.Fprintf(w, "  %s waits for %s held by %s; retry at %s (after %s)\n", c.Requester, gate.ShownFewPaths(c.Paths, " "),
				c.Holder.Owner.Where(), c.RetryAt.UTC().Format(time.RFC3339), windowString(c.RetryAfter, c.RetryAt.Sub(c.FirstDeniedAt)))
			if note := blocker.GitLockNote(c.HoldsGitLock, c.ID, c.Holder.Owner.Name); note != "" {
				fmt.Fprintf(w, "      %s\n", note)
			}
		}
	}
	if len(s.Blockers) > 0 {
		fmt.Fprintf(w, "\nOPEN BLOCKERS (%d) — see `leasegate blockers ID`\n", len(s.Blockers))
		for _, b := range s.Blockers {
			fmt.Fprintf(w, "  %s  %s cannot write %s (held by %s)\n", b.ID, b.Requester.Name, gate.ShownPath(b.Path), b.Holder.Owner.Where())
			if n := b.HolderNow; n != nil && !n.Holds {
				fmt.Fprintf(w, "      holder %s no longer holds it: %s\n", b.Holder.Owner.Name, n.Phrase())
			}
			if note := b.FreeNote(); note != "" {
				fmt.Fprintf(w, "      now %s\n", note)
			}
			if note := b.GitLockNote(); note != "" {
				fmt.Fprintf(w, "      %s\n", note)
			}
		}
	}
	if len(s.Ungated) > 0 {
		fmt.Fprintf(w, "\nUNGATED WRITES (last %d)\n", len(s.Ungated))
		for _, u := range s.Ungated {
			with := ""
			switch {
			case u.Lease != nil && u.Lease.Kind == gate.KindCheckout && u.Reporter == "watcher":
				with = " — checked out by " + u.Lease.Owner.Name + " (no gate saw it: " + u.Lease.Owner.Name + " or anyone else may have made it)"
			case u.Lease != nil:
				with = " — collided with the lease of " + u.Lease.Owner.Name
			case u.Op == "overflow":
				with = " — the kernel dropped watch events: a write anywhere in the workspace may have gone unseen"
			case u.Op == leasegate.OpViewUnwatched:
				with = " — " + u.Reporter + "'s FUSE view met the user's inotify limit here (fs.inotify.max_user_watches, or max_user_instances for the root; sysctl): names in this directory and others it could not watch are asked for at each use (slower, never stale)"
			case u.Op == "unwatched":
				with = " — the watcher met its limit here: writes in this directory and others left unwatched go unseen (" + orDash(h.Log) + " says which limit)"
			}
			if u.NotRecorded {
				with += " — not recorded: the ledger refused it (see the WARNING); shown until the coordinator stops"
			}
			fmt.Fprintf(w, "  %s %s %s%s\n", u.At.UTC().Format(time.RFC3339), u.Op, gate.ShownPath(u.Path), with)
		}
	}
}

// printCoordinator says which coordinator answers: its process, version,
// start, socket, log, the ledger it serves, and the windows it gives owners that name none.
func printCoordinator(w io.Writer, s leasegate.Status, h api.Health, seenPID int, ws *workspace.Workspace) {
	fmt.Fprintf(w, "coordinator %s, leasegate %s", shownCoordinatorPID(seenPID, h.PID), orDash(h.Version))
	if !s.StartedAt.IsZero() {
		fmt.Fprintf(w, ", started %s (%s ago)", s.StartedAt.UTC().Format(time.RFC3339), ago(s.Now, s.StartedAt))
	}
	fmt.Fprintf(w, "\n  socket   %s\n  log      %s\n", ws.SocketPath(), orDash(h.Log))
	if h.Ledger != nil {
		fmt.Fprintf(w, "  ledger   %s (%s)\n", shownLedger(*h.Ledger, ws), h.Ledger.Source())
	}
	fmt.Fprintf(w, "  windows  for owners that name none: retry after %s, stop-idle %s (each owner's below)\n",
		windowString(s.Defaults.Retry, s.RetryAfter), windowString(s.Defaults.Idle, s.IdleAfter))
}

// shownCoordinatorPID names the coordinator's process by seen, its pid as
// this process sees it (coordinatorPID), and own, the pid it reports. A
// coordinator in a pid namespace of its own reports its pid there, which
// is another process's here (a kernel thread's on the host): the pid to
// signal or nsenter is the one the socket's peer has here. One above this
// shell's (the host's, seen from a container) has no pid here: the kernel
// gives the socket's peer as 0.
func shownCoordinatorPID(seen, own int) string {
	switch {
	case seen == 0 && own != 0:
		return fmt.Sprintf("pid %d in its pid namespace (not visible from this one)", own)
	case seen != own:
		return fmt.Sprintf("pid %d (pid %d in its pid namespace)", seen, own)
	default:
		return fmt.Sprintf("pid %d", own)
	}
}

// shownLedger names the ledger, a file inside the workspace by its path
// from the root (.git/leasegate/ledger.db).
func shownLedger(l leasegate.LedgerView, ws *workspace.Workspace) string {
	if rel, err := filepath.Rel(ws.Root, l.File); err == nil && !l.Shared() && filepath.IsLocal(rel) {
		return rel
	}
	return l.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// windowString reads "1s (flag)"; a window without its source (from an
// older coordinator) is d alone.
func windowString(w gate.Window, d time.Duration) string {
	switch {
	case w.Set() && w.From != "":
		return w.String()
	case w.Set():
		return w.After.String()
	case d != 0:
		return d.String()
	}
	return "-"
}

// pidString is an owner's pid as the coordinator sees it, with the one it
// reported when they differ (a worker in its own pid namespace); "-" for
// an owner with no process of its own (an agent hook's session).
func pidString(o leasegate.OwnerView) string {
	switch {
	case o.SeenPID == 0 && o.PID == 0:
		return "-"
	case o.SeenPID == 0:
		return strconv.Itoa(o.PID)
	case o.SeenPID != o.PID:
		return fmt.Sprintf("%d (reported %d)", o.SeenPID, o.PID)
	}
	return strconv.Itoa(o.SeenPID)
}

// tokenText is a fencing token as status shows it: on a shared ledger a
// grant whose commit is still on its way has none yet (0).
func tokenText(tok uint64) string {
	if tok == 0 {
		return "pending"
	}
	return strconv.FormatUint(tok, 10)
}
