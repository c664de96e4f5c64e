package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

func ago(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return now.Sub(t).Round(time.Second).String()
}

// agoText is how long ago t was, "-" when never.
func agoText(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return ago(now, t) + " ago"
}

func scopeString(s gate.Scope) string {
	if s.Type == gate.ScopeFull {
		return "(full workspace)"
	}
	return shownPaths(s.Paths)
}

// shownPath is p as text output shows it: p itself when it is valid UTF-8
// and every character is printable, else quoted as a Go string. A file
// name is a worker's choice; one holding a newline or an escape sequence
// would otherwise forge lines of the output or drive the operator's
// terminal.
func shownPath(p string) string {
	if !utf8.ValidString(p) || strings.IndexFunc(p, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(p)
	}
	return p
}

// shownPaths is paths as text output shows them, space separated.
func shownPaths(paths []string) string {
	shown := make([]string, len(paths))
	for i, p := range paths {
		shown[i] = shownPath(p)
	}
	return strings.Join(shown, " ")
}

func printLeaseOp(op string, res leasegate.LeaseResult) {
	for _, l := range res.Leases {
		fmt.Printf("%s %s: %s is %s", op, l.ID, scopeString(l.Scope), l.State)
		if l.State == gate.StateActive && !l.ExpiresAt.IsZero() {
			fmt.Printf(", expires %s", l.ExpiresAt.UTC().Format(time.RFC3339))
		}
		fmt.Println()
	}
	if res.Decision.Remaining > 0 && op == "checkin" {
		fmt.Printf("validated with %s remaining\n", res.Decision.Remaining.Round(time.Second))
	}
}

// eventLine is an event as one line of text.
func eventLine(e gate.Event) string {
	subject := string(e.LeaseID)
	if e.Lease != nil {
		subject = fmt.Sprintf("%s %s (%s, token %d", e.Lease.ID, scopeString(e.Lease.Scope), e.Lease.Kind, e.Lease.FencingToken)
		if !e.Lease.ExpiresAt.IsZero() {
			subject += ", expires " + e.Lease.ExpiresAt.UTC().Format(time.RFC3339)
		}
		subject += ")"
	}
	if e.Path != "" {
		subject = strings.TrimSpace(shownPath(e.Path) + " " + subject)
	}
	line := fmt.Sprintf("%6d  %s  %-20s %s", e.Seq, e.At.UTC().Format(time.RFC3339), string(e.Type), subject)
	if e.Actor != "" {
		line += "  by " + e.Actor
	}
	if e.By != nil {
		line += " [operator " + e.By.String() + "]"
	}
	if e.Reason != "" {
		line += "  — " + e.Reason
	}
	return line
}

func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
