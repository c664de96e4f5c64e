package liveness_test

import (
	"testing"

	"github.com/leasegate/leasegate/internal/deptest"
)

// TestDependencies fails when liveness gains a dependency it must not have,
// directly or through gopsutil.
func TestDependencies(t *testing.T) {
	const pkg = "github.com/leasegate/leasegate/liveness"
	deps := deptest.Deps(t, pkg)
	deptest.Require(t, pkg, deps, "github.com/shirou/gopsutil/v3/process")
	deptest.Forbid(t, pkg, deps, "go.etcd.io/bbolt", "net/http", "github.com/hanwen/go-fuse/v2")
}
