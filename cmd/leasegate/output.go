package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

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

// scopeString is a scope as text names it: its first few paths
// (gate.ShownFewPaths), every one in --json.
func scopeString(s gate.Scope) string {
	if s.Type == gate.ScopeFull {
		return "(full workspace)"
	}
	return gate.ShownFewPaths(s.Paths, " ")
}

// leaseString is what l holds as text names it, marked when it was taken
// on a directory its owner created (gate.Lease.NewDir): another owner's
// new name there narrows it to the entries it lists.
func leaseString(l gate.Lease) string {
	if l.NewDir {
		return scopeString(l.Scope) + " (new directory)"
	}
	return scopeString(l.Scope)
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
		subject = fmt.Sprintf("%s %s (%s, token %d", e.Lease.ID, leaseString(*e.Lease), e.Lease.Kind, e.Lease.FencingToken)
		if !e.Lease.ExpiresAt.IsZero() {
			subject += ", expires " + e.Lease.ExpiresAt.UTC().Format(time.RFC3339)
		}
		subject += ")"
	}
	if e.Path != "" {
		subject = strings.TrimSpace(gate.ShownPath(e.Path) + " " + subject)
	}
	line := fmt.Sprintf("%6d  %s  %-20s %s", e.Seq, e.At.UTC().Format(time.RFC3339), string(e.Type), subject)
	if e.Actor != "" {
		// A notice's actor is the owner it is for, not one who acted.
		rel := "by"
		if e.Type == gate.EventNotice {
			rel = "to"
		}
		line += "  " + rel + " " + e.Actor
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
