package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/mattn/go-isatty"

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
	fs.BoolVar(&follow, "follow", false, "keep streaming new events until interrupted; exits 5 when the coordinator goes away")
	fs.BoolVar(&text, "text", false, "one readable line per event (the default when stdout is a terminal)")
	fs.Uint64Var(&after, "after", 0, "start after this sequence number")
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
	last := after
	err = cl.Events(ctx, after, follow, func(e gate.Event) error {
		last = e.Seq
		if human {
			_, err := fmt.Println(eventLine(e))
			return err
		}
		return enc.Encode(e)
	})
	if !follow || ctx.Err() != nil {
		return err
	}
	// A followed stream ends only when the coordinator goes away.
	if err != nil && !errors.Is(err, api.ErrUnavailable) {
		err = fmt.Errorf("%w: %v", api.ErrUnavailable, err)
	}
	if err == nil {
		err = fmt.Errorf("%w: the coordinator of %s went away", api.ErrUnavailable, ws.Root)
	}
	return fmt.Errorf("events: %w (last event seq %d; `leasegate events --follow --after %d` resumes)", err, last, last)
}
