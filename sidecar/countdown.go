package sidecar

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// countdownEvery is how often the countdown line is redrawn.
const countdownEvery = time.Second

// countdown shows what a held write waits for and the time to its retry
// on the terminal, as one line redrawn each second. Its goroutine ends at
// stop, which erases the line.
type countdown struct {
	once sync.Once
	stop chan struct{}
	done chan struct{}
}

// startCountdown starts a countdown for contention c when the notices go
// to a terminal (Config.Countdown); otherwise it shows nothing.
func (s *Sidecar) startCountdown(c leasegate.ContentionView) *countdown {
	cd := &countdown{stop: make(chan struct{}), done: make(chan struct{})}
	if !s.cfg.Countdown {
		close(cd.done)
		return cd
	}
	go func() {
		defer close(cd.done)
		t := s.cfg.Clock.Ticker(countdownEvery)
		defer t.Stop()
		var shown redrawn
		for {
			shown.draw(s.cfg.Notices, countdownLine(c, s.cfg.Clock.Now(), s.terminalWidth()))
			select {
			case <-cd.stop:
				shown.draw(s.cfg.Notices, "")
				return
			case <-t.C:
			}
		}
	}()
	return cd
}

// terminalWidth is Config.TerminalWidth's answer, 0 when none is known.
func (s *Sidecar) terminalWidth() int {
	if s.cfg.TerminalWidth == nil {
		return 0
	}
	return s.cfg.TerminalWidth()
}

// redrawn is a line drawn over the one before it with a carriage return.
// The rest of a longer line before is overwritten with spaces rather than
// erased with an escape sequence, which a terminal without them
// (TERM=dumb, an editor's shell buffer) would print.
type redrawn struct{ width int }

// draw replaces the line shown with line; "" erases it and leaves the
// cursor at the start of the row, for what is written next.
func (r *redrawn) draw(w io.Writer, line string) {
	n := utf8.RuneCountInString(line)
	out := "\r" + line + strings.Repeat(" ", max(r.width-n, 0))
	if line == "" {
		out += "\r"
	}
	fmt.Fprint(w, out)
	r.width = n
}

// countdownLine reads "leasegate: a.txt waits for carol (lease L) — retry
// in 2m41s", fitted to width columns (0: unknown, whole). It never wraps:
// a carriage return goes back to the start of the terminal's row, and a
// wrapped line would leave a copy of its first row at each redraw. On a
// narrow terminal the lease id is left out first, then what it waits for
// is cut short, so that the time left stays in view.
func countdownLine(c leasegate.ContentionView, now time.Time, width int) string {
	left := max(c.RetryAt.Sub(now), 0).Round(time.Second)
	head := fmt.Sprintf("leasegate: %s waits for %s", gate.ShownFewPaths(c.Paths, " "), c.Holder.Owner.Name)
	lease := fmt.Sprintf(" (lease %s)", c.Holder.ID)
	tail := fmt.Sprintf(" — retry in %s", left)
	room := width - 1 - utf8.RuneCountInString(tail)
	switch n := utf8.RuneCountInString(head); {
	case width <= 0 || n+utf8.RuneCountInString(lease) <= room:
		return head + lease + tail
	case n <= room:
		return head + tail
	case room > len("..."):
		return string([]rune(head)[:room-len("...")]) + "..." + tail
	}
	r := []rune(strings.TrimPrefix(tail, " "))
	return string(r[:min(max(width-1, 0), len(r))])
}

// end stops the countdown and erases its line; safe to call more than once
// and on nil.
func (cd *countdown) end() {
	if cd == nil {
		return
	}
	cd.once.Do(func() { close(cd.stop) })
	<-cd.done
}
