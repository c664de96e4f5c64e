package main

import (
	"fmt"

	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/watch"
)

// ownFiles is the fewest descriptors a coordinator keeps for its own
// files beside its connections: the ledger and its journal, the log, the
// socket, the watcher's queue, git's pipes, a pidfd per owner, blocker
// reports and webhooks (about 15 at rest on Linux). A quarter of the
// open-files limit is kept when that is more: owners come and go.
const ownFiles = 32

// minConns is the fewest connections a coordinator starts with: each
// sidecar holds a stream and one for each write that waits, each hook call
// and command one while it runs.
const minConns = 8

// connBudget is how many connections a coordinator may hold at once
// under the open-files limit (0: none known), of which the watcher may
// take watching (-1: none of its own per file): what is left once its own
// files have their share, at most api.MaxConns. Beyond the limit, accept
// fails with EMFILE and every new client waits for a connection to end,
// ledger and pidfds short of descriptors too.
func connBudget(limit uint64, watching int) int {
	if limit == 0 {
		return api.MaxConns
	}
	rest := int(min(limit, 1<<30))
	if watching > 0 {
		rest -= watching
	}
	return max(0, min(api.MaxConns, rest-max(ownFiles, rest/4)))
}

// limitConns fits srv's connections into the process's open-files limit
// (Go raised its soft limit to the hard one at start; only the hard one
// can bind it), saying so when it lowers them; a limit that leaves room
// for fewer than minConns is an error naming it.
func limitConns(srv *api.Server, noWatch bool) error {
	limit := filesLimit()
	watching := -1
	if !noWatch {
		watching = watch.DefaultBudget()
	}
	n := connBudget(limit, watching)
	switch {
	case n >= api.MaxConns:
		return nil
	case n < minConns:
		return fmt.Errorf("the open-files limit (%d) leaves the coordinator room for %d connections, fewer than the %d it needs: raise it (ulimit -n, or the container's nofile) before it starts", limit, n, minConns)
	}
	srv.LimitConns(n, limit)
	return nil
}
