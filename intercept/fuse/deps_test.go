//go:build linux && (amd64 || arm64)

package fuse_test

import (
	"testing"

	"github.com/leasegate/leasegate/internal/deptest"
)

// TestDependencies fails when the FUSE adapter gains a dependency it must
// not have: no lease logic, no HTTP, no other adapter.
func TestDependencies(t *testing.T) {
	const pkg = "github.com/leasegate/leasegate/intercept/fuse"
	deps := deptest.Deps(t, pkg)
	deptest.Require(t, pkg, deps, "github.com/hanwen/go-fuse/v2/fs")
	deptest.Forbid(t, pkg, deps, "net/http", "go.etcd.io/bbolt", "github.com/shirou/gopsutil/v3",
		"github.com/hashicorp/go-retryablehttp", "github.com/leasegate/leasegate/intercept/seccomp")
	allowed := map[string]bool{pkg: true,
		"github.com/leasegate/leasegate/intercept":        true,
		"github.com/leasegate/leasegate/intercept/spawn":  true,
		"github.com/leasegate/leasegate/intercept/procfs": true,
		"github.com/leasegate/leasegate/internal/envname": true,
	}
	for _, dep := range deps {
		if deptest.Under(dep, "github.com/leasegate/leasegate") && !allowed[dep] {
			t.Errorf("%s depends on %s: adapters import no other leasegate package", pkg, dep)
		}
	}
}
