package main

import (
	"context"
	"errors"
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
		return interrupted(ctx, name, run(ctx, args))
	}
}

// interrupted is err, said plainly when it is ctx's end by Ctrl-C or
// SIGTERM while the command waited for the coordinator ("context
// canceled" otherwise). A request the coordinator took may still be
// carried out once it can (its ledger commits it), so a command that
// changes something says where to look.
func interrupted(ctx context.Context, name string, err error) error {
	if ctx.Err() == nil || !errors.Is(err, context.Canceled) {
		return err
	}
	switch name {
	case "status", "blockers", "history", "ui":
		return fmt.Errorf("%s: interrupted before the coordinator answered", name)
	}
	return fmt.Errorf("%s: interrupted before the coordinator answered; it may still carry the request out once it can: `leasegate status` shows what is held", name)
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
