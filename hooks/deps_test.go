package hooks_test

import (
	"testing"

	"github.com/leasegate/leasegate/internal/deptest"
)

// TestDependencies fails when hooks reaches the interception or storage
// side: a hook talks to the coordinator through the api client only.
func TestDependencies(t *testing.T) {
	const pkg = "github.com/leasegate/leasegate/hooks"
	deps := deptest.Deps(t, pkg)
	deptest.Require(t, pkg, deps, "github.com/leasegate/leasegate/api")
	deptest.Forbid(t, pkg, deps,
		"github.com/leasegate/leasegate/coordinator", "github.com/leasegate/leasegate/sidecar", "github.com/leasegate/leasegate/intercept",
		"github.com/leasegate/leasegate/store/bolt", "go.etcd.io/bbolt", "github.com/hanwen/go-fuse/v2")
}
