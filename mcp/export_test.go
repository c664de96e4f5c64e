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
