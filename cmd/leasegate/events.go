package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
)

func cmdEvents(ctx context.Context, args []string) error {
	var f common
	var follow, text bool
	var after uint64
	fs := flag.NewFlagSet("events", flag.ContinueOnError)
	f.register(fs, false)
	startsNothing(fs)
	fs.BoolVar(&follow, "follow", false, "keep streaming new events until interrupted; exits 5 when the coordinator goes away; a stream it cuts while it answers (etcd unreachable, the shared ledger went back) is followed again, the cause said on stderr")
	fs.BoolVar(&text, "text", false, "one readable line per event (the default when stdout is a terminal)")
	fs.Var(&uintFlag{n: &after, what: "a sequence number >= 0 (an event's seq; 0 starts at the first)"}, "after", "start after the event numbered `SEQ` (0: from the first)")
	if err := parseNone("events", fs, args); err != nil {
		return err
	}
	if text && f.jsonOut {
		return usagef("events: --text and --json exclude each other")
	}
	cl, ws, err := f.reader(ctx)
	if err != nil || cl == nil {
		return err
	}
	human := text || (!f.jsonOut && isatty.IsTerminal(os.Stdout.Fd()))
	if follow && human {
		fmt.Fprintf(os.Stderr, "following the events of %s (Ctrl-C ends)\n", ws.Root)
	}
	enc := json.NewEncoder(os.Stdout)
	show := func(e gate.Event) error {
		if human {
			_, err := fmt.Println(eventLine(e))
			return err
		}
		return enc.Encode(e)
	}
	if !follow {
		return cl.Events(ctx, after, false, show)
	}
	return followEvents(ctx, cl, ws.Root, after, show)
}

// followEvents streams the events after seq after to show until ctx ends.
// A coordinator cuts its followers' streams while it keeps answering: its
// etcd session lapsed (etcd unreachable), the shared ledger went back, or
// a follower fell behind. Then the cause is said on stderr, once while it
// lasts, as the coordinator's status names it, and the stream is followed
// again from the last event seen (from the ledger's last one when it went
// back below it). It ends with ErrUnavailable only when the coordinator
// does not answer.
func followEvents(ctx context.Context, cl *api.Client, root string, after uint64, show func(gate.Event) error) error {
	last, said, since := after, "", time.Now()
	for {
		var showErr error
		err := cl.Events(ctx, last, true, func(e gate.Event) error {
			last, said = e.Seq, ""
			showErr = show(e)
			return showErr
		})
		if ctx.Err() != nil {
			return nil
		}
		if showErr != nil {
			return showErr
		}
		sctx, cancel := context.WithTimeout(ctx, statusWait)
		st, serr := cl.Status(sctx)
		cancel()
		if ctx.Err() != nil {
			return nil
		}
		if serr != nil {
			return followGone(root, last, cmp.Or(err, serr))
		}
		why, from := streamCut(root, st, last, since)
		last = from
		if wb := st.WentBack; wb != nil && wb.At.After(since) {
			since = wb.At // followed on from where it ended: said once
		}
		if why != said {
			fmt.Fprintf(os.Stderr, "events: %s; following again after seq %d\n", why, last)
			said = why
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(followAgainEvery):
		}
	}
}

// statusWait bounds the status asked for the cause of a cut stream: a
// coordinator that does not answer within it is taken to be gone.
const statusWait = 10 * time.Second

// followAgainEvery paces following again while the coordinator keeps
// cutting the stream (each lapsed etcd session does): soon enough to miss
// little of what a recovered cluster commits, rare enough to cost it
// nothing.
const followAgainEvery = time.Second

// streamCut says why a coordinator that answers with st cut the stream of
// a follower that had seen seq last and follows since, and returns the seq
// to follow on from: last, or where the shared ledger ends now when it went
// back since, for the events after that are not the ones seen, though
// their seqs may have climbed past last again.
func streamCut(root string, st leasegate.Status, last uint64, since time.Time) (string, uint64) {
	switch wb := st.WentBack; {
	case wb != nil && wb.At.After(since) && wb.Ends < last:
		return wb.Summary(), min(wb.Ends, st.LastSeq)
	case st.LastSeq < last:
		return fmt.Sprintf("the shared ledger went back from seq %d to seq %d (etcd wiped, or restored from an older snapshot): the events after it are no longer the ledger's", last, st.LastSeq), st.LastSeq
	case st.LedgerWarning != "":
		return fmt.Sprintf("the coordinator of %s answers but cut the stream: %s", root, st.LedgerWarning), last
	}
	return fmt.Sprintf("the coordinator of %s answers but cut the stream (its table was reloaded, or this follower fell behind)", root), last
}

// followGone is the error of a followed stream whose coordinator does not
// answer: exit 5, naming where to resume.
func followGone(root string, last uint64, err error) error {
	resume := fmt.Sprintf("last event seq %d; `leasegate events --follow --after %d` resumes", last, last)
	if errors.Is(err, api.ErrUnavailable) {
		return fmt.Errorf("events: %w: the coordinator of %s went away (%s)", err, root, resume)
	}
	return fmt.Errorf("events: %w: the coordinator of %s went away: %v (%s)", api.ErrUnavailable, root, err, resume)
}
