package sidecar

import (
	"fmt"
	"sync"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// countdownEvery is how often the countdown line is redrawn.
const countdownEvery = time.Second

// clearLine returns the cursor to the line's start and erases the line.
const clearLine = "\r\x1b[K"

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
		for {
			fmt.Fprint(s.cfg.Notices, clearLine+countdownLine(c, s.cfg.Clock.Now()))
			select {
			case <-cd.stop:
				fmt.Fprint(s.cfg.Notices, clearLine)
				return
			case <-t.C:
			}
		}
	}()
	return cd
}

// countdownLine reads "leasegate: a.txt waits for carol (lease L) — retry in 2m41s".
func countdownLine(c leasegate.ContentionView, now time.Time) string {
	left := max(c.RetryAt.Sub(now), 0).Round(time.Second)
	return fmt.Sprintf("leasegate: %s waits for %s (lease %s) — retry in %s", gate.ShownPaths(c.Paths, " "), c.Holder.Owner.Name, c.Holder.ID, left)
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
