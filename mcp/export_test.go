package mcp

import (
	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// CheckState is the state leases_check tells me of path p from the
// status st, with the workspace's folding given.
func CheckState(st leasegate.Status, p, me string, f gate.Folding) string {
	return checkPath(st, p, me, nil, f).State
}

// OnSubscribing has f called at the end of s's subscribe handler, before
// the SDK records the subscription.
func OnSubscribing(s *Server, f func()) {
	s.watch.mu.Lock()
	defer s.watch.mu.Unlock()
	s.watch.subscribing = f
}
