package main

import (
	"context"
	"flag"
	"os"
	"runtime/debug"

	"github.com/leasegate/leasegate/internal/envname"
	"github.com/leasegate/leasegate/mcp"
)

// cmdMCP serves leasegate's MCP tools over stdio for the agent that
// started it. Logs go to stderr (stdout is the protocol), silent unless
// a level is asked for.
func cmdMCP(ctx context.Context, args []string) error {
	var f hookFlags
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	f.common.register(fs, false)
	fs.Lookup("json").Usage = "refused (exit 2): every answer is JSON-RPC, with structured content"
	fs.StringVar(&f.as, "as", os.Getenv(envname.As), "owner name to act as (env "+envname.As+"; default: the agent session's owner, as its hooks name it)")
	pos, err := f.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("mcp: takes no arguments (an agent starts it; see leasegate install)")
	}
	if f.jsonOut {
		return usagef("mcp: --json does not apply: every answer is JSON-RPC, with structured content")
	}
	ws, err := f.workspace()
	if err != nil {
		return err
	}
	if err := f.chosen(ws); err != nil {
		return err
	}
	tuneMCPCollector(os.Getenv("GOGC"), os.Getenv("GOMEMLIMIT"))
	log := f.log()
	connect := func(ctx context.Context) (mcp.Coordinator, error) {
		cl, err := f.dial(ctx, ws, dialConfig{Start: true, Health: true, RetryMax: 1, Logger: log})
		if err != nil {
			return nil, err // not a typed nil in the interface
		}
		return cl, nil
	}
	s, err := mcp.New(mcp.Config{Connect: connect, Workspace: ws, Owner: f.as, Version: versionString(), Logger: log})
	if err != nil {
		return usagef("mcp: %v", err)
	}
	return s.Run(ctx, mcp.StdioTransport())
}

// The collector's settings for `leasegate mcp`, unless GOGC or GOMEMLIMIT
// say otherwise. The SDK decodes JSON through a new decoder with a 32 KiB
// buffer several times per call, even over mcp.LineTransport, so one
// leases_check makes a few hundred KiB of garbage on a live heap near
// 1 MiB: at Go's default of 100 a collection ran every four or five
// calls, and a call that met one took milliseconds longer on a busy
// machine. At 1000 the heap goal starts near 40 MiB and a collection
// comes about every hundred calls; the soft limit keeps one large answer
// (a status of 100,000 leases) from growing the heap tenfold before the
// next.
const (
	mcpGCPercent   = 1000
	mcpMemoryLimit = 128 << 20
)

// tuneMCPCollector applies mcpGCPercent and mcpMemoryLimit where the
// environment (gogc, memLimit: GOGC and GOMEMLIMIT, which the runtime has
// already applied) sets nothing.
func tuneMCPCollector(gogc, memLimit string) {
	if gogc == "" {
		debug.SetGCPercent(mcpGCPercent)
	}
	if memLimit == "" {
		debug.SetMemoryLimit(mcpMemoryLimit)
	}
}
