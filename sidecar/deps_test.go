package sidecar_test

import (
	"testing"

	"github.com/leasegate/leasegate/internal/deptest"
)

// TestDependencies fails when the sidecar reaches the server side: it
// gates a worker through a leasegate.Service (the api client over the
// socket), never through the coordinator's package or the store.
func TestDependencies(t *testing.T) {
	const pkg = "github.com/leasegate/leasegate/sidecar"
	deps := deptest.Deps(t, pkg)
	deptest.Require(t, pkg, deps, "github.com/leasegate/leasegate")
	deptest.Forbid(t, pkg, deps,
		"github.com/leasegate/leasegate/coordinator", "github.com/leasegate/leasegate/scheduler",
		"github.com/leasegate/leasegate/store", "go.etcd.io/bbolt", "go.etcd.io/etcd")
}
