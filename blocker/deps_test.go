package blocker_test

import (
	"testing"

	"github.com/leasegate/leasegate/internal/deptest"
)

// TestDependencies fails when blocker reaches beyond the standard library
// and the lease model (with what gate itself may reach).
func TestDependencies(t *testing.T) {
	const pkg = "github.com/leasegate/leasegate/blocker"
	deps := deptest.NonStandardDeps(t, pkg)
	deptest.Require(t, pkg, deps, pkg)
	deptest.Only(t, pkg, deps, deptest.WithDeps(t, "github.com/leasegate/leasegate/gate")...)
}
