package api_test

import (
	"testing"

	"github.com/leasegate/leasegate/internal/deptest"
)

// TestDependencies fails when the API reaches into the coordinator: the
// server serves any leasegate.Service and the client is one, so neither
// needs the coordinator's package (its tests run a real one).
func TestDependencies(t *testing.T) {
	const pkg = "github.com/leasegate/leasegate/api"
	deps := deptest.Deps(t, pkg)
	deptest.Require(t, pkg, deps, "github.com/leasegate/leasegate")
	deptest.Forbid(t, pkg, deps,
		"github.com/leasegate/leasegate/coordinator", "github.com/leasegate/leasegate/store", "go.etcd.io/bbolt")
}
