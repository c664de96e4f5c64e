package sidecar

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// TestCountdownLineFits: the countdown line is cut to one column less
// than the terminal, keeping the time left in view (on a 60-column
// terminal it wrapped, and each redraw left a copy of its first row);
// an unknown width leaves it whole.
func TestCountdownLineFits(t *testing.T) {
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	c := leasegate.ContentionView{Paths: []string{"src/a/very/long/path/to/some/file.go"}, RetryAt: now.Add(2*time.Minute + 41*time.Second)}
	c.Holder.Owner.Name, c.Holder.ID = "carol", gate.LeaseID("01M8EWTMWZK77341GEXPASXS8C")
	whole := "leasegate: src/a/very/long/path/to/some/file.go waits for carol (lease 01M8EWTMWZK77341GEXPASXS8C) — retry in 2m41s"
	tests := []struct {
		width int
		want  string
	}{
		{width: 0, want: whole},
		{width: 200, want: whole},
		{width: 90, want: "leasegate: src/a/very/long/path/to/some/file.go waits for carol — retry in 2m41s"},
		{width: 60, want: "leasegate: src/a/very/long/path/to/some... — retry in 2m41s"},
		{width: 12, want: "— retry in "},
	}
	for _, tt := range tests {
		got := countdownLine(c, now, tt.width)
		if got != tt.want {
			t.Errorf("countdownLine(width %d) = %q, want %q", tt.width, got, tt.want)
		}
		if n := utf8.RuneCountInString(got); tt.width > 0 && n >= tt.width {
			t.Errorf("countdownLine(width %d) is %d columns wide, want fewer", tt.width, n)
		}
	}
}

// TestRedrawnNeedsNoEscapes: a redraw overwrites the rest of a longer
// line before with spaces and the erase ends at the row's start, with no
// escape sequence a dumb terminal would print.
func TestRedrawnNeedsNoEscapes(t *testing.T) {
	var out bytes.Buffer
	var r redrawn
	r.draw(&out, "retry in 10s")
	r.draw(&out, "retry in 9s")
	r.draw(&out, "")
	if want := "\rretry in 10s\rretry in 9s \r           \r"; out.String() != want {
		t.Errorf("redraws wrote %q, want %q", out.String(), want)
	}
	if strings.Contains(out.String(), "\x1b") {
		t.Errorf("redraws wrote an escape sequence: %q", out.String())
	}
}
