package main

import (
	"fmt"

	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/liveness"
	"github.com/leasegate/leasegate/watch"
)

// ownFiles is the fewest descriptors a coordinator keeps for its own
// files beside its connections and pidfds: the ledger and its journal,
// the log, the socket, the watcher's queue, git's pipes, /proc reads,
// blocker reports and webhooks (about 15 at rest on Linux). A quarter of
// the open-files limit is kept when that is more, and what it leaves
// beyond ownFiles is the pidfds' (pidfdBudget).
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

// pidfdBudget is how many pidfds the coordinator may hold at once (its
// owners' processes, and callers whose writes wait) under the open-files
// limit (-1: no limit known): what connections, the watcher and ownFiles
// leave. An owner beyond it is judged by its pid and start time. Each
// pidfd is held as long as its owner is registered, so without a share of
// their own eighty workers under ulimit -n 256 took the descriptors that
// /proc reads and connections needed.
func pidfdBudget(limit uint64, watching int) int {
	if limit == 0 {
		return -1
	}
	rest := int(min(limit, 1<<30)) - max(watching, 0)
	return max(0, rest-connBudget(limit, watching)-ownFiles)
}

// watchBudget is what the watcher may hold of the open-files limit
// (-1: none of its own per file, or no watcher).
func watchBudget(noWatch bool) int {
	if noWatch {
		return -1
	}
	return watch.DefaultBudget()
}

// pidfdShare is the coordinator's share of pidfds under the process's
// open-files limit, recording to log the first open that finds the limit
// reached.
func pidfdShare(noWatch bool, log hclog.Logger) *liveness.Descriptors {
	limit := filesLimit()
	return liveness.NewDescriptors(pidfdBudget(limit, watchBudget(noWatch)), limit, log)
}

// limitConns fits srv's connections into the process's open-files limit
// (Go raised its soft limit to the hard one at start; only the hard one
// can bind it), saying so when it lowers them; a limit that leaves room
// for fewer than minConns is an error naming it.
func limitConns(srv *api.Server, noWatch bool) error {
	limit := filesLimit()
	n := connBudget(limit, watchBudget(noWatch))
	switch {
	case n >= api.MaxConns:
		return nil
	case n < minConns:
		return fmt.Errorf("the open-files limit (%d) leaves the coordinator room for %d connections, fewer than the %d it needs: raise it (ulimit -n, or the container's nofile) before it starts", limit, n, minConns)
	}
	srv.LimitConns(n, limit)
	return nil
}
