package blocker

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/leasegate/leasegate/gate"
)

// Markdown renders the report for an operator: a title, a table of who
// holds what since when and how alive the holder is, the liveness
// evidence, the resolution if any, and the commands that resolve it.
func (r Report) Markdown() string {
	var b strings.Builder
	_ = r.WriteMarkdown(&b) // a strings.Builder never fails
	return b.String()
}

// WriteMarkdown writes r.Markdown() to w.
func (r Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# BLOCKED: %s cannot write %s\n\n", oneLine(r.Requester.Name), gate.ShownPath(r.Path))
	if n := r.HolderNow; n != nil {
		fmt.Fprintf(&b, "Written at the retry, %s; \"Holder now\" and the steps to resolve are as of %s.\n\n", stamp(r.RetriedAt), stamp(n.AsOf))
	}
	b.WriteString("| Field | Value |\n|---|---|\n")
	for _, row := range r.rows() {
		fmt.Fprintf(&b, "| %s | %s |\n", row[0], cell(row[1]))
	}
	r.writeEvidence(&b)
	b.WriteString("\n## How to resolve\n\n")
	if len(r.HowToResolve) == 0 && r.Status != StatusOpen {
		fmt.Fprintf(&b, "Nothing left to do: the blocker is %s.\n", r.Status)
	}
	for i, cmd := range r.HowToResolve {
		fmt.Fprintf(&b, "%d. %s\n", i+1, code(cmd))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (r Report) rows() [][2]string {
	h := r.Holder
	rows := [][2]string{
		{"Blocker", fmt.Sprintf("%s (%s)", code(r.ID), r.Status)},
		{"File", code(gate.ShownPath(r.Path))},
		{"All paths", codes(r.Paths)},
		{"Operation", orDash(r.Op)},
		{"Requester", owner(r.Requester)},
		{"Held by", owner(h.Owner)},
		{"Held for", fmt.Sprintf("%s, since %s", h.HeldFor.Round(time.Second), stamp(h.AcquiredAt))},
		{"Lease", fmt.Sprintf("%s (%s, fencing token %d)", code(string(h.LeaseID)), orDash(string(h.Kind)), h.FencingToken)},
		{"Holder liveness", fmt.Sprintf("%s, checked %s (at the retry)", orDash(string(h.Liveness.Status)), stamp(h.Liveness.CheckedAt))},
		{"First denied", fmt.Sprintf("%s (%s)", stamp(r.FirstDeniedAt), r.Reason)},
		{"Retry due", stamp(r.RetryAt)},
		{"Retried at", fmt.Sprintf("%s (%s)", stamp(r.RetriedAt), orDash(string(r.RetryResult)))},
		{"Retry interval", "retry=" + r.RetryInterval.String() + from(r.RetryFrom, "the requester's window")},
	}
	if n := r.HolderNow; n != nil {
		rows = slices.Insert(rows, 9, [2]string{"Holder now", n.Detail()})
	}
	if r.HoldsGitLock != "" {
		note := code(r.HoldsGitLock) + " (until the write was decided)"
		if r.Status == StatusOpen {
			note = r.GitLockNote()
		}
		rows = slices.Insert(rows, 5, [2]string{"Holds git's lock", note})
	}
	if h.SameFileAs != "" {
		rows = slices.Insert(rows, 2, [2]string{"Same file as", code(gate.ShownPath(h.SameFileAs)) + " (held under that name)"})
	}
	if h.IdleAfter != 0 {
		rows = append(rows, [2]string{"Holder stop-idle", h.IdleAfter.String() + from(h.IdleFrom, "the holder's window")})
	}
	if note := r.FreeNote(); note != "" {
		rows = append(rows, [2]string{"Now", note})
	}
	if res := r.Resolution; res != nil {
		rows = append(rows, [2]string{"Resolution", resolution(res)})
	}
	return rows
}

func (r Report) writeEvidence(b *strings.Builder) {
	fmt.Fprintf(b, "\nLiveness evidence for %s at the retry:\n\n", oneLine(r.Holder.Owner.Name))
	if len(r.Holder.Liveness.Evidence) == 0 {
		b.WriteString("- none recorded\n")
	}
	for _, e := range r.Holder.Liveness.Evidence {
		fmt.Fprintf(b, "- %s\n", oneLine(e))
	}
}

// from renders " (what, from SOURCE)", or nothing when the source is
// unknown.
func from(src gate.WindowSource, what string) string {
	if src == "" {
		return ""
	}
	return fmt.Sprintf(" (%s, from %s)", what, src)
}

func resolution(res *Resolution) string {
	s := fmt.Sprintf("%s by %s at %s", res.Action, orDash(res.By), stamp(res.At))
	if res.Note != "" {
		s += ": " + res.Note
	}
	return s
}

// owner renders "name (host h, pid p)", leaving out what is unknown.
func owner(o gate.Owner) string {
	var parts []string
	if o.Host != "" {
		parts = append(parts, "host "+o.Host)
	}
	if o.PID > 0 {
		parts = append(parts, fmt.Sprintf("pid %d", o.PID))
	}
	if len(parts) == 0 {
		return orDash(o.Name)
	}
	return fmt.Sprintf("%s (%s)", orDash(o.Name), strings.Join(parts, ", "))
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// codes renders paths as code spans, each shown by gate.ShownPath.
func codes(paths []string) string {
	cs := make([]string, len(paths))
	for i, p := range paths {
		cs[i] = code(gate.ShownPath(p))
	}
	return strings.Join(cs, ", ")
}

// code renders s as an inline code span, fenced by more backticks than
// s contains in a row.
func code(s string) string {
	s = oneLine(s)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// cell makes s safe inside a table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// oneLine is s on one line with nothing a terminal would act on: s
// itself when every character prints, else quoted as a Go string. The
// paths of a report are shown by gate.ShownPath; the rest (names,
// evidence) is the coordinator's text, quoted only if a process's name or
// another value it quotes held such a character.
func oneLine(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }) < 0 && utf8.ValidString(s) {
		return s
	}
	return strconv.Quote(s)
}
