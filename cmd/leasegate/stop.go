package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/leasegate/leasegate/api"
)

func cmdStop(ctx context.Context, args []string) error {
	var f leaseFlags
	fs := flag.NewFlagSet("stop", flag.ContinueOnError)
	f.register(fs)
	if err := parseNone("stop", fs, args); err != nil {
		return err
	}
	if f.as == "" {
		return usagef("stop: --as NAME is required")
	}
	cl, _, err := f.client(ctx)
	if err != nil {
		return err
	}
	at, err := cl.Stop(ctx, f.as, "leasegate stop")
	if err != nil {
		return err
	}
	if f.jsonOut {
		return printJSON(api.StopResponse{ReleaseAt: at})
	}
	fmt.Printf("%s stopped: its leases are released at %s unless it mutates again before then\n", f.as, at.UTC().Format(time.RFC3339))
	return nil
}
