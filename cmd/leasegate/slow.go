package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/benbjohnson/clock"
)

// slowCommand is how long a command the coordinator answers at once may
// wait before it says that it still waits: a decision takes
// milliseconds, a commit to etcd tens of them, starting a coordinator
// that dials etcd up to 5 s.
const slowCommand = 3 * time.Second

// answersAtOnce wraps command name, whose requests the coordinator answers
// at once, so that it says on stderr, once, when it has waited
// slowCommand: a coordinator that does not answer (its etcd unreachable,
// a paused one) then is not taken for a hung command.
func answersAtOnce(name string, run func(context.Context, []string) error) func(context.Context, []string) error {
	return func(ctx context.Context, args []string) error {
		defer noteSlow(clock.New(), os.Stderr, name, slowCommand)()
		return run(ctx, args)
	}
}

// noteSlow writes to w that command name still waits once after has
// passed on clk, unless the returned stop is called first.
func noteSlow(clk clock.Clock, w io.Writer, name string, after time.Duration) (stop func()) {
	t := clk.AfterFunc(after, func() {
		fmt.Fprintf(w, "leasegate: %s: no answer from the coordinator for %s; still waiting "+
			"(one on a cluster waits for etcd: `leasegate status` says why once its session has lapsed; Ctrl-C gives up)\n", name, after)
	})
	return func() { t.Stop() }
}
